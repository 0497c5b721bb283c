import sys

from canary.cli import main

sys.exit(main())
