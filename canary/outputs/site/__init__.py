"""The status page: a static site built from the round history by `canary site --out DIR`.

    pure   strips.py     state timelines: one letter per time bucket per endpoint
           endpoints.py  each endpoint's routing state (excluded, suspended, would suspend,
                         floor held, active) next to its health tier
           badges.py     one SVG badge per model
           status.py     status.json declared (Structs) and its JSON Schema generated from them
           feeds.py      status.json (for gateways) and decisions.atom
           page.py       index.html: the fixed shell with the data as one inert JSON block
    I/O    collect.py    the page document from the history's query API and the routing layers
                         (takes them as values; reads no file itself)
           build.py      reads the history and the layers, writes every file atomically
    assets/              index.html, app.js (renders with ECharts, text only), style.css,
                         status.schema.json (generated: `python -m canary.outputs.site.status`)

ECharts is not vendored: package.json pins it, `npm ci` installs it, build.py copies it in.
"""
