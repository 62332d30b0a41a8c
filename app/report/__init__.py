"""`morale report`: a battle as one self-contained HTML page (projections/report.py gathers what it
shows; charts.py draws the charts with pygal as inline SVG; page.py lays the page out, with
report.css inlined)."""
