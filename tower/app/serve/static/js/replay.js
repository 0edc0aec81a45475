// The replay page: a finished game of this server (/replay/ID) or a record file opened in the lobby (/replay),
// step by step, seen by a seat or as a spectator, with the moving pieces animated.
import { SceneView } from './scene3d.js';
import { call, errorText, el, item } from './api.js';
import { openInLab } from './openlab.js';

const parts = location.pathname.split('/').filter(Boolean);
const gameId = parts.length > 1 ? decodeURIComponent(parts[1]) : null;
// The server answers a page of positions at a time (docs/serve.md): `frames` fills as the steps reach them.
const page = { doc: null, frames: [], total: 0, seat: 'public', k: 0, timer: null, view: null };
window.towerReplay = page;
const view = new SceneView(el('view'), { covered: () => el('hud').offsetHeight + el('hud').offsetTop });
page.view = view;

async function fetchPage(seat, from) {
  const q = `seat=${seat}&from=${from}`;
  if (gameId) return call('GET', `/api/games/${encodeURIComponent(gameId)}/replay?${q}`);
  const record = sessionStorage.getItem('tower-replay-record');
  if (!record) return null;
  return call('POST', `/api/replay?${q}`, record);
}

async function load(seat) {
  const answer = await fetchPage(seat, 0);
  if (!answer) {
    el('message').textContent = 'No record to replay: open one in the lobby.';
    return;
  }
  if (!answer.ok) {
    el('message').textContent = errorText(answer) + (answer.data.where ? ` at ${answer.data.where}` : '');
    return;
  }
  const first = page.doc === null;
  page.doc = answer.data;
  page.seat = seat;
  page.total = answer.data.total;
  page.frames = new Array(page.total);
  answer.data.frames.forEach((f) => { page.frames[f.k] = f; });
  el('title').textContent = `Replay: ${page.doc.title}`;
  el('who').textContent = page.doc.players.join(', ');
  if (first) {
    const sel = el('seat');
    sel.replaceChildren(item('option', 'spectator (public)'), ...page.doc.players.map((p) => item('option', p)));
    sel.options[0].value = 'public';
    page.doc.players.forEach((_, i) => { sel.options[i + 1].value = String(i); });
  }
  el('slider').max = page.total - 1;
  const log = el('log');
  // each move in words, as the game page's log says it (the move's text is its tooltip)
  log.replaceChildren(...page.doc.moves.map((m) => {
    const li = item('li', said(m.label, m.words || m.move));
    li.title = m.move;
    return li;
  }));
  el('outcome').textContent = page.doc.outcome || '';
  el('open-lab').hidden = !page.doc.construction;
  await go(Math.min(page.k, page.total - 1), false, true);
  document.body.dataset.ready = 'true';
}

async function go(k, animate = true, reset = false) {
  const frames = page.frames;
  k = Math.max(0, Math.min(page.total - 1, k));
  if (!frames[k]) {
    const answer = await fetchPage(page.seat, k - (k % page.doc.page));
    if (!answer || !answer.ok) {
      if (answer && answer.status === 429) setTimeout(() => go(k, animate, reset), 1000);
      return;
    }
    answer.data.frames.forEach((f) => { frames[f.k] = f; });
  }
  const from = animate && k === page.k + 1 && frames[page.k] ? frames[page.k].scene : null;
  page.k = k;
  const scene = frames[k].scene;
  el('hud').textContent = [scene.title, ...scene.lines].filter(Boolean).join('\n');
  view.show(scene, { from, resetCamera: reset });
  el('slider').value = k;
  el('step').textContent = k === 0 ? `start (${page.total - 1} moves)`
    : `move ${k}/${page.total - 1}: ${said(frames[k].label, frames[k].words || frames[k].move)}`;
  // the end is told when the steps reach it, not while the game is still being stepped through
  el('outcome').hidden = !page.doc.outcome || k < page.total - 1;
  [...el('log').children].forEach((li, i) => li.classList.toggle('current', i === k - 1));
  document.body.dataset.k = String(k);
}

// "P1 red: climb to (11,16), height 2": words that already name the player do not name them twice
function said(label, words) {
  return words.startsWith(label) ? words : `${label}: ${words}`;
}

function stop() {
  clearInterval(page.timer);
  page.timer = null;
  el('playpause').textContent = 'Play';
}

el('first').addEventListener('click', () => { stop(); go(0); });
el('prev').addEventListener('click', () => { stop(); go(page.k - 1); });
el('next').addEventListener('click', () => { stop(); go(page.k + 1); });
el('last').addEventListener('click', () => { stop(); go(page.total - 1); });
el('slider').addEventListener('input', (e) => { stop(); go(Number(e.target.value), false); });
el('seat').addEventListener('change', (e) => { stop(); load(e.target.value); });
el('playpause').addEventListener('click', () => {
  if (page.timer) return stop();
  el('playpause').textContent = 'Pause';
  page.timer = setInterval(() => {
    if (page.k >= page.total - 1) stop();
    else go(page.k + 1);
  }, 900);
});
document.addEventListener('keydown', (e) => {
  if (!page.doc) return;
  if (e.key === 'ArrowRight') go(page.k + 1);
  else if (e.key === 'ArrowLeft') go(page.k - 1);
});

load('public');

el('open-lab').addEventListener('click', () => openInLab(page.frames[page.k].scene)
  .catch((err) => { el('message').textContent = err.message; }));
