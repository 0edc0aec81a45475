// The replay page: a finished game of this server (/replay/ID) or a record file opened in the lobby (/replay),
// step by step, seen by a seat or as a spectator, with the moving pieces animated.
import { SceneView } from './scene3d.js';
import { call, errorText, el, item } from './api.js';

const parts = location.pathname.split('/').filter(Boolean);
const gameId = parts.length > 1 ? decodeURIComponent(parts[1]) : null;
const page = { doc: null, k: 0, timer: null, view: null };
window.towerReplay = page;
const view = new SceneView(el('view'), { covered: () => el('hud').offsetHeight + el('hud').offsetTop });
page.view = view;

async function load(seat) {
  let answer;
  if (gameId) {
    answer = await call('GET', `/api/games/${encodeURIComponent(gameId)}/replay?seat=${seat}`);
  } else {
    const record = sessionStorage.getItem('tower-replay-record');
    if (!record) {
      el('message').textContent = 'No record to replay: open one in the lobby.';
      return;
    }
    answer = await call('POST', `/api/replay?seat=${seat}`, record);
  }
  if (!answer.ok) {
    el('message').textContent = errorText(answer) + (answer.data.where ? ` at ${answer.data.where}` : '');
    return;
  }
  const first = page.doc === null;
  page.doc = answer.data;
  el('title').textContent = `Replay: ${page.doc.title}`;
  el('who').textContent = page.doc.players.join(', ');
  if (first) {
    const sel = el('seat');
    sel.replaceChildren(item('option', 'spectator (public)'), ...page.doc.players.map((p) => item('option', p)));
    sel.options[0].value = 'public';
    page.doc.players.forEach((_, i) => { sel.options[i + 1].value = String(i); });
  }
  el('slider').max = page.doc.frames.length - 1;
  const log = el('log');
  log.replaceChildren(...page.doc.frames.slice(1).map((f) => item('li', `${f.label}: ${f.move}`)));
  el('outcome').hidden = !page.doc.outcome;
  el('outcome').textContent = page.doc.outcome || '';
  go(Math.min(page.k, page.doc.frames.length - 1), false, true);
  document.body.dataset.ready = 'true';
}

function go(k, animate = true, reset = false) {
  const frames = page.doc.frames;
  k = Math.max(0, Math.min(frames.length - 1, k));
  const from = animate && k === page.k + 1 ? frames[page.k].scene : null;
  page.k = k;
  const scene = frames[k].scene;
  el('hud').textContent = [scene.title, ...scene.lines].filter(Boolean).join('\n');
  view.show(scene, { from, resetCamera: reset });
  el('slider').value = k;
  el('step').textContent = k === 0 ? `start (${frames.length - 1} moves)`
    : `move ${k}/${frames.length - 1}: ${frames[k].label}: ${frames[k].move}`;
  [...el('log').children].forEach((li, i) => li.classList.toggle('current', i === k - 1));
  document.body.dataset.k = String(k);
}

function stop() {
  clearInterval(page.timer);
  page.timer = null;
  el('playpause').textContent = 'Play';
}

el('first').addEventListener('click', () => { stop(); go(0); });
el('prev').addEventListener('click', () => { stop(); go(page.k - 1); });
el('next').addEventListener('click', () => { stop(); go(page.k + 1); });
el('last').addEventListener('click', () => { stop(); go(page.doc.frames.length - 1); });
el('slider').addEventListener('input', (e) => { stop(); go(Number(e.target.value), false); });
el('seat').addEventListener('change', (e) => { stop(); load(e.target.value); });
el('playpause').addEventListener('click', () => {
  if (page.timer) return stop();
  el('playpause').textContent = 'Pause';
  page.timer = setInterval(() => {
    if (page.k >= page.doc.frames.length - 1) stop();
    else go(page.k + 1);
  }, 900);
});
document.addEventListener('keydown', (e) => {
  if (!page.doc) return;
  if (e.key === 'ArrowRight') go(page.k + 1);
  else if (e.key === 'ArrowLeft') go(page.k - 1);
});

load('public');
