// The game page of one seat (or of the spectators): the 3D scene of what this link may see, the legal moves,
// the log, hint and undo, and the result at the end. The server pushes every change over a WebSocket; the page
// reconnects by itself when the connection drops (a restarted server, a network hiccup).
import { SceneView } from './scene3d.js';
import { call, errorText, el, item } from './api.js';
import { openInLab } from './openlab.js';

const gameId = decodeURIComponent(location.pathname.split('/').pop());
const token = new URLSearchParams(location.search).get('token') || '';
const base = `/api/games/${encodeURIComponent(gameId)}`;
const q = `token=${encodeURIComponent(token)}`;

// everything the page knows; also read by the end-to-end tests
const page = {
  snapshot: null,      // the server's last snapshot for this link
  scene: null,         // the scene drawn now (the snapshot's scene with this page's own overlays)
  block: null,         // The Climbers: the block whose placements are shown
  ghosts: [],          // ... and those placements (viewer.scene.SceneGhost as JSON)
  chosen: null,        // the move chosen in the scene, waiting for a second click or Play
  hinted: null,
  connected: false,
  updates: 0,          // snapshots received
  fatal: null,
  view: null,
};
window.towerPage = page;

const view = new SceneView(el('view'), { covered: () => el('hud').offsetHeight + el('hud').offsetTop });
page.view = view;
view.onPick = onPick;

// --- the connection ------------------------------------------------------------------------------------------
let retry = 0;

async function connect() {
  // a plain request first: a bad link gets its error in words, a server still down is retried
  const probe = await call('GET', `${base}/snapshot?${q}`);
  if (probe.status === 403 || probe.status === 404) {
    fatal(errorText(probe));
    return;
  }
  if (!probe.ok) {
    scheduleReconnect();
    return;
  }
  const proto = location.protocol === 'https:' ? 'wss' : 'ws';
  const ws = new WebSocket(`${proto}://${location.host}${base}/ws?${q}`);
  ws.onopen = () => {
    retry = 0;
    page.connected = true;
    el('connection').hidden = true;
    document.body.dataset.connected = 'true';
  };
  ws.onmessage = (e) => {
    const msg = JSON.parse(e.data);
    if (msg.type === 'snapshot') receive(msg.snapshot, msg.event);
  };
  ws.onclose = () => {
    page.connected = false;
    document.body.dataset.connected = 'false';
    if (!page.fatal) scheduleReconnect();
  };
}

function scheduleReconnect() {
  el('connection').hidden = false;
  el('connection').textContent = 'connection lost: reconnecting...';
  retry = Math.min(retry + 1, 6);
  setTimeout(connect, Math.min(250 * 2 ** retry, 4000));
}

function fatal(text) {
  page.fatal = text;
  el('status').textContent = text;
  el('status').className = 'status error';
  el('connection').hidden = true;
}

// --- a new snapshot --------------------------------------------------------------------------------------------
function receive(snap, event) {
  const prev = page.snapshot;
  const moved = !prev || prev.n !== snap.n || prev.rev !== snap.rev || prev.your_turn !== snap.your_turn;
  page.snapshot = snap;
  page.updates += 1;
  if (moved) {
    page.block = null;
    page.ghosts = [];
    page.chosen = null;
    page.hinted = null;
  }
  if (event && event.kind === 'undo') message(`${event.label} took a move back`);
  else if (moved) message('');
  draw(event && event.kind === 'move' && prev ? prev.scene : null);
  panel();
  document.body.dataset.n = snap.n;
  document.body.dataset.yourTurn = String(snap.your_turn);
  document.body.dataset.over = String(snap.over);
}

// the scene of the snapshot with what this page adds: the picked block, its placements, the chosen move
function draw(animateFrom) {
  const snap = page.snapshot;
  const scene = structuredClone(snap.scene);
  if (page.block) {
    scene.blocks = scene.blocks.map((b) => ({ ...b, selected: b.id === page.block, movable: false }));
    scene.ghosts = page.ghosts.map((g) => ({ ...g, selected: g.label === page.chosen }));
    for (const g of page.ghosts) for (const c of g.faces) if (!scene.palette[c]) scene.palette[c] = [128, 128, 128];
  }
  const cell = snap.cells.find((c) => c.moves.includes(page.chosen));
  if (cell) {
    const me = scene.figures.find((f) => f.current);
    if (me) scene.ghost_figures = [{ ...me, cell: cell.cell, current: false, problem: false }];
  }
  page.scene = scene;
  el('hud').textContent = [scene.title, ...scene.lines].filter(Boolean).join('\n');
  view.show(scene, { from: animateFrom });
}

function panel() {
  const snap = page.snapshot;
  document.title = `${snap.title} - tower-sim`;
  el('title').textContent = snap.title;
  el('who').textContent = snap.seat === null
    ? 'Spectator: you see what is public'
    : `You play ${snap.players[snap.seat].label}`;
  const players = el('players');
  players.replaceChildren();
  for (const p of snap.players) {
    const li = item('li', `${p.label}${p.kind === 'human' ? '' : ` (${p.kind})`}`);
    if (p.seat === snap.to_move) li.classList.add('to-move');
    if (p.seat === snap.seat) li.classList.add('you');
    players.appendChild(li);
  }
  const status = el('status');
  status.className = 'status';
  if (snap.over) {
    status.textContent = 'Game over';
  } else if (snap.your_turn) {
    status.textContent = 'Your turn';
    status.classList.add('your-turn');
  } else {
    const p = snap.players[snap.to_move];
    status.textContent = p.kind === 'human' ? `Waiting for ${p.label}` : `${p.label} (${p.kind}) is thinking...`;
  }
  el('result').hidden = !snap.over;
  if (snap.over) {
    el('outcome').textContent = snap.outcome;
    el('record-link').href = `${base}/record`;
    el('replay-link').href = `/replay/${encodeURIComponent(gameId)}`;
  }
  el('hint').disabled = !snap.your_turn;
  el('undo').disabled = !snap.undo;
  el('open-lab').hidden = !snap.construction;
  moves();
  chosenBar();
  const log = el('log');
  log.replaceChildren();
  for (const entry of snap.log) {
    // a hidden move is told in words that already name the player ("P2 has chosen whether to double")
    const text = entry.text.startsWith(entry.label) ? entry.text : `${entry.label}: ${entry.text}`;
    log.appendChild(item('li', text)).value = entry.n + 1;
  }
  log.scrollTop = log.scrollHeight;
}

function moves() {
  const snap = page.snapshot;
  const list = el('moves');
  list.replaceChildren();
  let texts = snap.moves;
  let title = 'Moves';
  if (page.block) {
    texts = page.ghosts.map((g) => g.label);
    title = `Placements of ${page.block} (click one in the scene or here)`;
  } else if (snap.construction && snap.blocks.length) {
    title = 'Moves (or click a block outlined in orange)';
  }
  el('moves-title').textContent = snap.your_turn ? title : 'Moves';
  if (!snap.your_turn) return;
  for (const text of texts) {
    const b = item('button', text);
    b.type = 'button';
    b.dataset.move = text;
    if (text === page.hinted) b.classList.add('hinted');
    if (text === page.chosen) b.classList.add('chosen-move');
    // in a list the choice is explicit: a click plays it (placements of a block are chosen first: many look alike)
    b.addEventListener('click', () => (page.block ? choose(text) : play(text)));
    list.appendChild(item('li')).appendChild(b);
  }
  if (page.block) {
    const back = item('button', 'Back to all moves');
    back.type = 'button';
    back.addEventListener('click', clearSelection);
    const li = item('li');
    li.appendChild(back);
    list.prepend(li);
  }
}

function chosenBar() {
  el('chosen').hidden = !page.chosen;
  el('chosen-text').textContent = page.chosen ? `${page.chosen} - click it again or Play` : '';
}

function message(text) {
  el('message').textContent = text;
}

// --- acting ------------------------------------------------------------------------------------------------------
async function play(text) {
  const snap = page.snapshot;
  if (!snap || !snap.your_turn) return;
  message(`playing ${text}...`);
  const answer = await call('POST', `${base}/moves?${q}`, { move: text, n: snap.n });
  if (!answer.ok) {
    message(errorText(answer));
    return;
  }
  message('');
  if (!page.connected) receive(await refresh(), null);
}

async function refresh() {
  const answer = await call('GET', `${base}/snapshot?${q}`);
  return answer.ok ? answer.data : page.snapshot;
}

function choose(text) {
  page.chosen = text;
  draw(null);
  moves();
  chosenBar();
}

function clearSelection() {
  page.block = null;
  page.ghosts = [];
  page.chosen = null;
  draw(null);
  moves();
  chosenBar();
}

async function selectBlock(id) {
  const snap = page.snapshot;
  const answer = await call('GET', `${base}/ghosts?${q}&block=${encodeURIComponent(id)}`);
  if (!answer.ok) {
    message(errorText(answer));
    return false;
  }
  if (page.snapshot !== snap) return false;   // the game moved on meanwhile
  page.block = id;
  page.ghosts = answer.data.ghosts;
  page.chosen = null;
  message(`${page.ghosts.length} placements for ${id}: click one, then click it again (or Play)`);
  draw(null);
  moves();
  chosenBar();
  return true;
}

function onPick(hit) {
  const snap = page.snapshot;
  if (!snap || !snap.your_turn || !snap.construction) return;
  if (!hit) {
    if (page.block || page.chosen) clearSelection();
    return;
  }
  const scene = page.scene;
  if (hit.layer === 'blocks') {
    const id = scene.blocks[hit.index].id;
    if (snap.blocks.includes(id)) selectBlock(id);
    else message(`block ${id} cannot move now`);
  } else if (hit.layer === 'ghosts' || hit.layer === 'ghost_sel') {
    const label = page.ghosts[hit.index].label;
    if (label === page.chosen) play(label);
    else choose(label);
  } else if (hit.layer === 'targets') {
    const cell = scene.markers[hit.index].cell;
    const entry = snap.cells.find((c) => c.cell.every((v, i) => v === cell[i]));
    if (!entry) return;
    if (entry.moves.includes(page.chosen)) play(page.chosen);
    else {
      choose(entry.moves[0]);
      if (entry.moves.length > 1) message(`${entry.moves.length} ways to get there: pick one in the list`);
    }
  } else if (hit.layer === 'ghost_figs' && page.chosen) {
    play(page.chosen);
  }
}

el('play-chosen').addEventListener('click', () => page.chosen && play(page.chosen));
el('clear-chosen').addEventListener('click', clearSelection);
el('reset-view').addEventListener('click', () => view.resetCamera());
el('open-lab').addEventListener('click', () => openInLab(page.snapshot.scene).catch((err) => message(err.message)));
el('hint').addEventListener('click', async () => {
  message('thinking of a hint...');
  const answer = await call('GET', `${base}/hint?${q}`);
  if (!answer.ok) {
    message(errorText(answer));
    return;
  }
  const move = answer.data.move;
  message(`hint: ${move}`);
  page.hinted = move;
  const words = move.split(' ');
  if (page.snapshot.construction && words[0] === 'block' && await selectBlock(words[1])) {
    choose(move);
    message(`hint: ${move}`);
  } else {
    moves();
  }
});
el('undo').addEventListener('click', async () => {
  const answer = await call('POST', `${base}/undo?${q}`, {});
  if (!answer.ok) message(errorText(answer));
});
document.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && page.chosen) play(page.chosen);
  else if (e.key === 'Escape') clearSelection();
});

connect();
