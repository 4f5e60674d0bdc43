// The realtime tab's script module (/assets/playground-realtime.js), served by the console with its
// audio worklet (playground-microphone.js; no inline script: the CSP forbids it).
// Start: the microphone is opened first (its permission prompt must not eat the secret's lifetime),
// then the console mints a client secret for the chosen key (a form post with the session's CSRF
// token), the page opens the realtime WebSocket and sends `start` with the secret, never a key. From
// `ready` the worklet's PCM16 16 kHz frames (100 ms) are sent as binary frames. A turn's partial
// replaces the turn's draft (a stale revision is ignored), a turn_final is appended, speaker_labels
// label the turns; Stop sends `stop`, and `final` ends the session with its record.

const form = document.getElementById('realtime-form');
const startButton = document.getElementById('realtime-start');
const stopButton = document.getElementById('realtime-stop');
const status = document.getElementById('realtime-status');
const turns = document.getElementById('realtime-turns');
const partial = document.getElementById('realtime-partial');
const finalRecord = document.getElementById('realtime-final');
let session = null;

document.getElementById('realtime-needs-script').hidden = true;
startButton.parentElement.hidden = false;

function say(text) {
  status.textContent = text;
}

function seconds(value) {
  return Number(value).toFixed(2) + ' s';
}

/** The turn's list item, made when its first labels or its turn_final arrive. */
function turnItem(turnId) {
  let item = turns.querySelector('li[data-turn="' + CSS.escape(turnId) + '"]');
  if (!item) {
    item = document.createElement('li');
    item.className = 'segment speaker-unknown';
    item.dataset.turn = turnId;
    const head = document.createElement('p');
    head.className = 'segment-head';
    const label = document.createElement('span');
    label.className = 'speaker-label';
    // Named by its place until (with live speaker labels) a voice's label arrives.
    label.textContent = 'Turn ' + (turns.children.length + 1);
    const times = document.createElement('span');
    times.className = 'muted';
    head.append(label, ' ', times);
    const text = document.createElement('p');
    text.className = 'turn-text';
    item.append(head, text);
    item.hidden = true;
    turns.append(item);
  }
  return item;
}

/** A revision id is <turn_id>.<n>. */
function revisionOf(event) {
  return Number(event.revision_id.slice(event.revision_id.lastIndexOf('.') + 1));
}

const speakerOrder = [];
function label(item, speaker) {
  if (!speakerOrder.includes(speaker) && speaker !== 'unknown') speakerOrder.push(speaker);
  const index = speakerOrder.indexOf(speaker);
  item.className = 'segment ' + (index < 0 ? 'speaker-unknown' : 'speaker-' + ((index % 4) + 1));
  item.querySelector('.speaker-label').textContent = 'Speaker ' + speaker;
}

function onEvent(event) {
  if (event.type === 'ready') {
    session.ready = true;
    stopButton.disabled = false;
    stopButton.focus();
    say('Streaming: speak now. Stop ends the session.');
  } else if (event.type === 'partial') {
    // A draft replaces the turn's previous one; an older revision than one shown is ignored.
    if (revisionOf(event) <= (session.revisions.get(event.turn_id) || 0)) return;
    session.revisions.set(event.turn_id, revisionOf(event));
    partial.textContent = event.text;
  } else if (event.type === 'turn_final') {
    session.revisions.set(event.turn_id, Infinity);
    partial.textContent = '';
    const item = turnItem(event.turn_id);
    item.querySelector('.turn-text').textContent = event.text;
    item.querySelector('.segment-head .muted').textContent = seconds(event.start) + ' to ' + seconds(event.end);
    item.hidden = false;
  } else if (event.type === 'speaker_labels') {
    for (const turn of event.turns) label(turnItem(turn.turn_id), turn.speaker);
  } else if (event.type === 'final') {
    session.final = true;
    partial.textContent = '';
    const count = event.turns.length + ' turn' + (event.turns.length === 1 ? '' : 's');
    finalRecord.textContent = 'Final record: ' + count + ', ' + seconds(event.audio_seconds) + ' of audio.';
    say('Session ended (final).');
  } else if (event.type === 'error') {
    session.error = true;
    say('The session ended: ' + event.message);
  }
}

async function openMicrophone() {
  const context = new AudioContext({ sampleRate: 16000 });
  // The voice as it is: the service's VAD and decoder expect unprocessed speech.
  const audio = { channelCount: 1, echoCancellation: false, noiseSuppression: false, autoGainControl: false };
  const stream = await navigator.mediaDevices.getUserMedia({ audio });
  await context.audioWorklet.addModule('/assets/playground-microphone.js');
  const capture = new AudioWorkletNode(context, 'pcm16-capture');
  const mute = context.createGain();
  mute.gain.value = 0;
  context.createMediaStreamSource(stream).connect(capture).connect(mute).connect(context.destination);
  await context.resume();
  return { context, stream, capture };
}

function closeMicrophone(microphone) {
  if (!microphone) return;
  microphone.capture.port.onmessage = null;
  for (const track of microphone.stream.getTracks()) track.stop();
  microphone.context.close().catch(() => {});
}

function finish() {
  if (!session) return;
  closeMicrophone(session.microphone);
  session = null;
  startButton.disabled = false;
  stopButton.disabled = true;
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (session) return;
  const fields = new FormData(form);
  session = { ready: false, final: false, error: false, revisions: new Map(), microphone: null, socket: null };
  startButton.disabled = true;
  turns.replaceChildren();
  partial.textContent = '';
  finalRecord.textContent = '';
  try {
    say('Opening the microphone…');
    session.microphone = await openMicrophone();
    say('Asking the console for a client secret…');
    const body = new URLSearchParams({ csrf: fields.get('csrf'), key_id: fields.get('key_id') || '' });
    const response = await fetch(form.action, { method: 'POST', body, credentials: 'same-origin' });
    const minted = (response.headers.get('content-type') || '').startsWith('application/json') ? await response.json() : null;
    if (!response.ok || !minted || minted.error) throw new Error(minted && minted.error ? minted.error.message : 'refused (' + response.status + ')');
    say('Connecting…');
    const socket = new WebSocket(minted.url);
    socket.binaryType = 'arraybuffer';
    session.socket = socket;
    const current = session;
    socket.addEventListener('open', () => {
      socket.send(
        JSON.stringify({
          type: 'start',
          client_secret: minted.client_secret,
          streaming_mode: 'realtime',
          audio: { encoding: 'pcm16', sample_rate: 16000, channels: 1 },
          language: fields.get('language'),
          model: fields.get('model'),
          diarization: { enabled: fields.get('diarization') === 'true' },
          event_schema: 'svc-agent-v1',
          session_id: 'console-' + crypto.randomUUID(),
        }),
      );
    });
    socket.addEventListener('message', (message) => {
      if (typeof message.data === 'string' && current === session) onEvent(JSON.parse(message.data));
    });
    socket.addEventListener('close', (close) => {
      if (current !== session) return;
      if (!current.final && !current.error) say('The connection closed (' + close.code + (close.reason ? ': ' + close.reason : '') + ').');
      finish();
    });
    current.microphone.capture.port.onmessage = (frame) => {
      if (current.ready && socket.readyState === WebSocket.OPEN) socket.send(frame.data);
    };
  } catch (error) {
    say('Not started: ' + error.message);
    finish();
  }
});

stopButton.addEventListener('click', () => {
  if (!session || !session.socket) return;
  // No more audio: the session decodes what it has, sends final, and closes.
  session.ready = false;
  closeMicrophone(session.microphone);
  session.microphone = null;
  stopButton.disabled = true;
  session.socket.send(JSON.stringify({ type: 'stop' }));
  say('Stopping: waiting for the final record…');
});
