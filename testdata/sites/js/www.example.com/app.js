// Text and a link that exist only after this script runs.
const dyn = document.getElementById('dyn');
dyn.textContent = 'Inserted by script';
const a = document.createElement('a');
a.href = 'made-by-script.html?x=1';
a.textContent = 'script link';
dyn.appendChild(a);

// JSON loaded with fetch() and rendered.
fetch('/data.json').then(r => r.json()).then(data => {
  const ul = document.getElementById('items');
  for (const item of data.items) {
    const li = document.createElement('li');
    li.textContent = item;
    ul.appendChild(li);
  }
});

// An image that loads only when scrolled into view.
const io = new IntersectionObserver(entries => {
  for (const e of entries) {
    if (e.isIntersecting) {
      e.target.src = e.target.dataset.src;
      io.unobserve(e.target);
    }
  }
});
document.querySelectorAll('img.observe').forEach(img => io.observe(img));
