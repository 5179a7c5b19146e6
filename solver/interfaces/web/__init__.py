"""`sleuth serve`: the web worksheet (a game at the table) and the design view (a game's
entropy analysis), on the engine and session files of `sleuth play`.

    gate.py       who may ask: Host, Origin, JSON changes, the LAN mode's access token
    library.py    the specs on offer (bundled, given, uploaded) and the loaded games
    cache.py      the loaded games kept within a memory budget, least recently used out
    quotas.py     limits on the sessions, uploads and disk a server's pages may fill
    uploads.py    an uploaded spec and its data files (a zip read in bounded pieces)
    forms.py      the observation forms and the marginal grids and panels, from a spec
    worksheet.py  one session file and its beliefs: state, observe, undo, redo, advice
    jobs.py       long computations (a design analysis), with progress and cancel
    resources.py  the JSON API's routes, one group per resource
    app.py        the Starlette app: the routes behind the gate, and the page (static/)
"""
