"""`sleuth serve`: the web worksheet (a game at the table) and the design view (a game's
entropy analysis), on the engine and session files of `sleuth play`.

    library.py    the specs on offer (bundled, given, uploaded) and the loaded games
    forms.py      the observation forms and the marginal grids and panels, from a spec
    worksheet.py  one session file and its beliefs: state, observe, undo, redo, advice
    jobs.py       long computations (a design analysis), with progress and cancel
    app.py        the Starlette app: the JSON API and the page (static/)
"""
