// The upload tab's script module (/assets/playground.js), served by the console like its other
// assets (no inline script: the CSP forbids it). It sends the form with fetch, so the chosen file
// stays in the page: the answer (rendered by the server, the same page a plain post gets) replaces
// the result section, the <audio> element plays the file from a blob: URL, and a word's button
// plays it from the word's start. The focus moves to the answer's heading, for keyboard and screen
// reader users.

const form = document.getElementById('playground-form');
const status = document.getElementById('playground-status');
let audioUrl = null;

if (form) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const file = form.elements.file.files[0];
    const submit = form.querySelector('button[type="submit"]');
    submit.disabled = true;
    status.textContent = 'Transcribing…';
    try {
      const response = await fetch(form.action, { method: 'POST', body: new FormData(form), credentials: 'same-origin' });
      const page = new DOMParser().parseFromString(await response.text(), 'text/html');
      const fresh = page.getElementById('playground-result');
      // Not the playground's answer (a session that ended, a refusal page): show that page instead.
      if (!fresh) {
        window.location.assign(response.url);
        return;
      }
      document.getElementById('playground-result').replaceWith(document.adoptNode(fresh));
      const audio = document.getElementById('playground-audio');
      if (audio && file) {
        if (audioUrl) URL.revokeObjectURL(audioUrl);
        audioUrl = URL.createObjectURL(file);
        audio.src = audioUrl;
        audio.hidden = false;
      }
      status.textContent = response.ok ? 'Done.' : 'Refused.';
      (document.getElementById('result-heading') || fresh).focus();
    } catch {
      status.textContent = 'The console could not be reached: try again.';
    } finally {
      submit.disabled = false;
    }
  });
}

// A word's button plays the recording from the word's start.
document.addEventListener('click', (event) => {
  const word = event.target.closest('button.word[data-start]');
  const audio = document.getElementById('playground-audio');
  if (!word || !audio || !audio.src) return;
  audio.currentTime = Number(word.dataset.start);
  audio.play().catch(() => {});
});
