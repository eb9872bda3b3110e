"""The leaderboard (seed 000 Tables 1, 5 and 6): one package, read in one direction.

- selectors: the board built from the runs' stored SubsetScore rows, and two runs compared item by item;
- board: the typed board (pydantic) every reader of it gets: the API's response and its schema, the page,
  and the exports;
- export: the board as CSV, JSON and Markdown; figures: its two SVG figures;
- views and api: the pages and GET /api/evaluation/leaderboard/ and /compare/."""
