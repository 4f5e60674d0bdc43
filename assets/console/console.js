// Every console page's script module (/assets/console.js): copy buttons (`data-copy` names the id of
// the element whose text they copy); nothing else. Served by the console from its own origin, like
// its other assets (src/console/console-assets.ts): pages carry no inline script, the CSP forbids it.

for (const button of document.querySelectorAll('button[data-copy]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    const text = document.getElementById(button.dataset.copy)?.textContent ?? '';
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Select and copy it';
    }
  });
}
