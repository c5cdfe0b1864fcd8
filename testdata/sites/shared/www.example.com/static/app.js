// Every page loads this script; it fetches the same JSON on every page.
fetch('/static/data.json')
  .then(r => r.json())
  .then(d => { document.getElementById('out').textContent = d.text; document.title += ' ready'; })
  .catch(() => { document.title += ' failed'; });
