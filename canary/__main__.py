import sys

from canary.cli.main import main

sys.exit(main())
