// The game page of one seat (or of the spectators): the 3D scene of what this link may see, the legal moves,
// the log, hint and undo, and the result at the end. The server pushes every change over a WebSocket; the page
// reconnects by itself when the connection drops (a restarted server, a network hiccup).
import { SceneView } from './scene3d.js';
import { byNumber, call, errorText, el, item, naturally } from './api.js';
import { openInLab } from './openlab.js';
import { Aim, BlockPlacements } from './placement.js';
import { CardPointer } from './cardpoint.js';
import { cellEntry, hoverWords, stoneMove } from './climberswords.js';
import { remember, turnSignal } from './tabsignal.js';

const gameId = decodeURIComponent(location.pathname.split('/').pop());
const token = new URLSearchParams(location.search).get('token') || '';
const base = `/api/games/${encodeURIComponent(gameId)}`;
const q = `token=${encodeURIComponent(token)}`;

// everything the page knows; also read by the end-to-end tests
const page = {
  snapshot: null,      // the server's last snapshot for this link
  scene: null,         // the scene drawn now (the snapshot's scene with this page's own overlays)
  block: null,         // The Climbers: the block being placed
  aim: null,           // ... its placements and where the pointer aims (placement.js: Aim over BlockPlacements)
  pointer: null,       // a card game, your turn: the walk over the click paths (cardpoint.js: CardPointer)
  chosen: null,        // the move chosen in the list or the scene, waiting for a second click or Play
  preview: null,       // a move of the list under the pointer: what it names is lit on the table
  hoverBlock: null,    // The Climbers: the block under the pointer (its id is said, it is outlined)
  sending: null,       // a move on its way to the server
  sent: 0,             // moves sent
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
view.onHover = onHover;
view.onWheel = (dy) => {
  if (page.aim) turn(dy > 0 ? 1 : -1);
  else if (waysHere()) cycleWays(dy > 0 ? 1 : -1);
  else return false;
  return true;
};

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
  const quiet = event && (event.kind === 'name' || event.kind === 'rematch');  // nothing moved on the table
  const moved = !prev || (!quiet && (prev.n !== snap.n || prev.rev !== snap.rev || prev.your_turn !== snap.your_turn));
  page.snapshot = snap;
  page.updates += 1;
  page.sending = null;
  if (moved) {
    page.block = null;
    page.aim = null;
    page.chosen = null;
    page.hinted = null;
    page.preview = null;
    page.hoverBlock = null;
    page.pointer = snap.pointing ? new CardPointer(snap.pointing) : null;
    view.setAim(null);
    el('aim').hidden = true;
  }
  if (event && event.kind === 'undo') message(`${event.label} took a move back`);
  else if (moved) message('');
  if (moved) pointerStatus(page.pointer ? page.pointer.status() : stepStatus());
  if (moved) hintText('');
  draw(event && event.kind === 'move' && prev ? prev.scene : null);
  panel();
  turnSignal(page, prev);
  remember(page);
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
    for (const s of page.aim.ps.shapes) for (const c of s.faces) if (!scene.palette[c]) scene.palette[c] = [128, 128, 128];
  }
  const shown = page.preview || page.chosen;
  if (shown && shown.startsWith('fig ')) {
    // a figure move: the figure drawn where it would stand
    const cell = snap.cells.find((c) => c.moves.includes(shown));
    const me = scene.figures.find((f) => f.current);
    if (cell && me) scene.ghost_figures = [{ ...me, cell: cell.cell, current: false, problem: false }];
  } else if (shown && shown.startsWith('stone ')) {
    // the blocking stone: drawn on the block it would block, that block outlined
    const id = shown.split(' ')[1];
    const cell = snap.cells.find((c) => c.moves.includes(shown));
    const me = scene.figures.find((f) => f.current);
    scene.blocks = scene.blocks.map((x) => (x.id === id ? { ...x, selected: true } : x));
    if (cell) {
      scene.stones = [...scene.stones, { colour: me ? me.colour : 'grey', block: id,
        centre: [cell.cell[0] + 0.5, cell.cell[1] + 0.5, cell.cell[2]] }];
    }
  }
  if (snap.construction && page.hoverBlock && !page.block) scene.hover = page.hoverBlock;
  if (page.pointer) {
    // a card game: the chosen card lifted, where it can go lit, the place under the pointer said in words
    const drawn = page.pointer.decorate(scene);
    Object.assign(scene, drawn);
  }
  page.scene = scene;
  el('hud').textContent = [scene.title, ...scene.lines].filter(Boolean).join('\n');
  view.show(scene, { from: animateFrom });
}

function panel() {
  const snap = page.snapshot;
  el('title').textContent = snap.title;
  el('who').textContent = snap.seat === null
    ? 'Spectator: you see what is public'
    : `You play ${snap.players[snap.seat].label}`;
  el('name-form').hidden = snap.seat === null;
  if (snap.seat !== null && document.activeElement !== el('name')) el('name').value = snap.players[snap.seat].name || '';
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
  el('prompt').textContent = snap.prompt || '';
  el('result').hidden = !snap.over;
  if (snap.over) {
    el('outcome').textContent = snap.outcome;
    el('record-link').href = `${base}/record`;
    el('replay-link').href = `/replay/${encodeURIComponent(gameId)}`;
    el('rematch').hidden = snap.seat === null || !!snap.rematch;
    el('rematch-link').hidden = !snap.rematch;
    if (snap.rematch) el('rematch-link').href = snap.rematch;
  }
  el('hint').disabled = !snap.your_turn;
  el('undo').disabled = !snap.undo;
  el('open-lab').hidden = !snap.construction;
  howToPlay(snap.how_to_play);
  moves();
  chosenBar();
  const log = el('log');
  log.replaceChildren();
  for (const entry of snap.log) {
    // a hidden move is told in words that already name the player ("P2 has chosen whether to double")
    const said = entry.words || entry.text;
    const text = said.startsWith(entry.label) ? said : `${entry.label}: ${said}`;
    log.appendChild(item('li', text)).value = entry.n + 1;
  }
  log.scrollTop = log.scrollHeight;
}

function howToPlay(text) {
  const box = el('how-text');
  if (box.dataset.done || !text) return;
  box.replaceChildren(...text.split(/\n\s*\n/).map((para) => item('p', para)));
  box.dataset.done = 'true';
}

// the words of a move of the list (the game's `move_words`), its text when the game gave none
function words(text) {
  const snap = page.snapshot;
  return (snap.words && snap.words[text]) || text;
}

// The Climbers: the moves that name no place on the table (skip in each step, pass) are buttons beside the
// pointer's line, with a key each
const ACTION_KEYS = { skip: 'S', pass: 'P' };
function actions() {
  const snap = page.snapshot;
  const box = el('step-actions');
  box.replaceChildren();
  if (!snap.construction || !snap.your_turn) return;
  for (const text of snap.moves.filter((t) => t in ACTION_KEYS)) {
    const b = item('button', `${words(text)} (${ACTION_KEYS[text]})`);
    b.type = 'button';
    b.dataset.move = text;
    b.title = `${text}: key ${ACTION_KEYS[text]}`;
    if (text === page.hinted) b.classList.add('hinted');
    b.addEventListener('click', () => play(text));
    box.appendChild(b);
  }
}

// what a click does in this step of The Climbers (or what a click just tried says); '' elsewhere
function stepStatus() {
  const snap = page.snapshot;
  if (!snap || !snap.construction || !snap.your_turn) return '';
  return (snap.stuck && snap.stuck['']) || '';
}

function preview(text) {
  // once a move is chosen the table shows it (a list drawn again under a still pointer must not replace it)
  if (page.preview === text || (text !== null && page.chosen)) return;
  page.preview = text;
  if (page.aim) {
    // a placement of the picked block: its ghost where it would go (back to the pointer's aim when left)
    const p = text && page.aim.ps.placements.find((x) => x.text === text);
    const cur = page.aim.current;
    view.setAim(p ? page.aim.ps.ghost(p) : cur ? page.aim.ps.ghost(cur) : null);
    return;
  }
  if (page.snapshot.construction) {
    page.hoverBlock = text && text.startsWith('stone ') ? text.split(' ')[1] : null;
    draw(null);
  } else if (page.pointer) {
    showPath(text);
  }
}

// a card game: the walk of one move drawn on the table (its card lifted, where it goes lit and said), as a
// hint or a move of the list under the pointer shows it; null: the pointer's own walk again
function showPath(text) {
  const ptr = page.pointer;
  if (!ptr) return;
  if (text === null) {
    if (page.walk) [ptr.chosen, ptr.hover] = page.walk;
    page.walk = null;
  } else {
    if (!page.walk) page.walk = [ptr.chosen, ptr.hover];
    ptr.showMove(text);
  }
  draw(null);
}

function moves() {
  const snap = page.snapshot;
  const list = el('moves');
  list.replaceChildren();
  page.preview = null;
  actions();
  let entries = naturally(snap.moves).map((t) => [t, words(t)]);
  let title = 'Moves';
  if (page.block) {
    const said = new Map(page.aim.ps.placements.map((p) => [p.text, p.words || p.text]));
    entries = naturally([...said.keys()]).map((t) => [t, said.get(t)]);
    title = `Places for block ${page.block} (point in the scene, or pick one here)`;
  } else if (snap.construction && snap.blocks.length) {
    title = 'Moves (or click a block outlined in orange to move it)';
  }
  // the blocks that may be moved, one button each (a click picks the block up, as a click on it in the scene does)
  const blocks = !page.block && snap.construction && snap.your_turn ? byNumber(snap.blocks) : [];
  el('moves-title').textContent = snap.your_turn ? title : 'Moves';
  if (!snap.your_turn) return;
  for (const [text, said] of entries) {
    const b = item('button', said);
    b.type = 'button';
    b.dataset.move = text;
    b.title = text;
    if (text === page.hinted) b.classList.add('hinted');
    if (text === page.chosen) b.classList.add('chosen-move');
    // in a list the choice is explicit: a click plays it (placements of a block are chosen first: many look alike)
    b.addEventListener('click', () => (page.block ? chooseFromList(text) : play(text)));
    // what the move names lights on the table while the pointer (or the keyboard's focus) is on it
    b.addEventListener('mouseenter', () => preview(text));
    b.addEventListener('focus', () => preview(text));
    b.addEventListener('mouseleave', () => preview(null));
    b.addEventListener('blur', () => preview(null));
    list.appendChild(item('li')).appendChild(b);
  }
  for (const id of blocks) {
    const b = item('button', `pick up block ${id}`);
    b.type = 'button';
    b.dataset.block = id;
    b.title = `block ${id}: then point where it goes, or pick a place from the list`;
    b.addEventListener('click', () => selectBlock(id));
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
  let said = page.chosen ? words(page.chosen) : '';
  const p = page.aim && page.aim.ps.placements.find((x) => x.text === page.chosen);
  if (p) said = p.words || p.text;
  el('chosen-text').textContent = page.chosen ? `${said} - click it again or Play` : '';
}

function message(text) {
  el('message').textContent = text;
}

// a hint is advice, in its own quiet line (not the red line of refusals)
function hintText(text) {
  el('hint-text').textContent = text;
  document.body.dataset.hint = text;
}

// --- acting ------------------------------------------------------------------------------------------------------
async function play(text) {
  const snap = page.snapshot;
  if (!snap || !snap.your_turn || page.sending) return;
  message('');
  el('aim-status').textContent = 'placing...';
  page.sending = text;   // until the answer: the pointer is still, a second click sends nothing
  page.sent += 1;
  document.body.dataset.sent = String(page.sent);
  const answer = await call('POST', `${base}/moves?${q}`, { move: text, n: snap.n });
  if (page.snapshot === snap) page.sending = null;
  if (!answer.ok) {
    page.sending = null;
    message(errorText(answer));
    if (page.pointer) pointerStatus(page.pointer.status());
    return;
  }
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
  page.aim = null;
  page.chosen = null;
  if (page.pointer) page.pointer.reset();
  view.setAim(null);
  el('aim').hidden = true;
  if (page.snapshot && page.snapshot.construction) pointerStatus(stepStatus());
  draw(null);
  moves();
  chosenBar();
}

// The Climbers: a block is chosen; its placements come once, then the pointer aims without asking the server.
async function selectBlock(id) {
  const snap = page.snapshot;
  el('aim').hidden = false;
  el('aim-status').textContent = `loading the places for ${id}...`;
  const answer = await call('GET', `${base}/placements?${q}&block=${encodeURIComponent(id)}`);
  if (!answer.ok) {
    el('aim').hidden = true;
    message(errorText(answer));
    return false;
  }
  if (page.snapshot !== snap) return false;   // the game moved on meanwhile
  page.block = id;
  page.aim = new Aim(new BlockPlacements(answer.data));
  page.chosen = null;
  message('');
  el('aim-status').textContent = page.aim.status();
  draw(null);
  moves();
  chosenBar();
  return true;
}

function showAim() {
  const aim = page.aim;
  const cur = aim.current;
  view.setAim(cur ? aim.ps.ghost(cur) : null);
  page.chosen = cur ? cur.text : null;
  el('aim-status').textContent = aim.status();
  chosenBar();
}

function aimAt(clientX, clientY) {
  const s = view.surfaceAt(clientX, clientY);
  page.aim.point(s ? s.point : null, s ? s.normal : [0, 0, 1]);
  showAim();
}

function onHover(clientX, clientY) {
  if (page.aim) aimAt(clientX, clientY);
  else if (page.pointer) pointAt(clientX, clientY);
  else if (page.snapshot && page.snapshot.construction) climbersHover(view.pickAt(clientX, clientY));
}

// The Climbers: what is under the pointer is said (a block by its id) before it is clicked
function climbersHover(hit) {
  const { id, said } = hoverWords(page.snapshot, page.scene, hit, words);
  if (id !== page.hoverBlock) {
    page.hoverBlock = id;
    draw(null);
  }
  pointerStatus(said || stepStatus());
}

// --- the card games: a card, then where it goes (cardpoint.js, the twin of viewer/cards/pointing.py) ------------
function spotAt(clientX, clientY) {
  const hit = view.pickAt(clientX, clientY);
  return hit ? page.pointer.spotAt(hit.layer, hit.index, page.scene) : null;
}

function pointAt(clientX, clientY) {
  if (page.sending || !page.pointer.point(spotAt(clientX, clientY))) return;
  draw(null);
  pointerStatus(page.pointer.words() || page.pointer.message || page.pointer.status());
}

function pointerStatus(text, refused = false) {
  el('point-status').textContent = text;
  el('point-status').classList.toggle('refused', refused);
  document.body.dataset.point = text;
}

function cardClick(hit) {
  const ptr = page.pointer;
  const key = hit ? ptr.spotAt(hit.layer, hit.index, page.scene) : null;
  const text = ptr.click(key);
  document.body.dataset.chosen = ptr.chosen.join(' ');
  if (text !== null) {
    pointerStatus(`playing: ${words(text)}`);
    page.chosen = null;
    play(text);
    return;
  }
  const settled = ptr.current();
  page.chosen = settled === null ? null : ptr.table.moves[settled][0];
  draw(null);
  moves();
  chosenBar();
  pointerStatus(ptr.message || ptr.status());
}

function turn(step) {
  if (!page.aim) return;
  page.aim.cycle(step);
  showAim();
}

function chooseFromList(text) {
  if (page.aim && page.aim.choose(text)) {
    showAim();
    page.chosen = text;
    moves();
    chosenBar();
  } else {
    choose(text);
  }
}

function onPick(hit, e) {
  const snap = page.snapshot;
  if (!snap) return;
  if (!snap.construction && page.pointer && snap.your_turn) {
    if (page.sending) pointerStatus(`playing: ${words(page.sending)} (wait for the answer)`);
    else cardClick(hit);
    return;
  }
  if (!snap.your_turn) {
    // a click out of turn says so, rather than nothing
    if (hit && !snap.over) {
      const p = snap.players[snap.to_move];
      if (snap.seat === null) pointerStatus('you are watching: only the players play');
      else pointerStatus(p ? `wait: it is ${p.label}'s turn` : '');
    }
    return;
  }
  if (!snap.construction) return;
  if (page.aim) {
    // aiming: a click places the block where the pointer is (the ghost), or says why it cannot go there
    aimAt(e.clientX, e.clientY);
    const cur = page.aim.current;
    if (cur) {
      play(cur.text);
    } else if (hit && hit.layer === 'blocks') {
      // nothing can go here, but this is another block that may move: pick that one instead
      const id = page.scene.blocks[hit.index].id;
      if (id !== page.block && snap.blocks.includes(id)) selectBlock(id).then((ok) => ok && aimAt(e.clientX, e.clientY));
    }
    return;
  }
  if (!hit) {
    if (page.chosen) clearSelection();
    pointerStatus(stepStatus());
    return;
  }
  const scene = page.scene;
  if (hit.layer === 'blocks') {
    const id = scene.blocks[hit.index].id;
    const stone = stoneMove(page.snapshot, id);
    if (snap.blocks.includes(id)) selectBlock(id).then((ok) => ok && aimAt(e.clientX, e.clientY));
    else if (stone) chooseOrPlay([stone]);
    else pointerStatus((snap.stuck && snap.stuck[id]) || `block ${id} cannot be used now`, true);
  } else if (hit.layer === 'targets') {
    const entry = cellEntry(page.snapshot, scene.markers[hit.index].cell);
    if (entry) chooseOrPlay(entry.moves);
  } else if (hit.layer === 'ghost_figs' && page.chosen) {
    play(page.chosen);
  } else {
    pointerStatus(stepStatus(), true);
  }
}

// a click on a place that names moves: the first click chooses (it is drawn on the table), the second plays it;
// several ways to one place (ladders) are said, the first chosen (the list has the others)
function chooseOrPlay(texts) {
  if (texts.includes(page.chosen)) {
    play(page.chosen);
    return;
  }
  choose(texts[0]);
  sayWays();
}

// The Climbers: the moves that go to the chosen cell (a figure reaching it with one ladder or another), when
// there is more than one; the wheel or R turns through them
function waysHere() {
  const snap = page.snapshot;
  if (!snap || !snap.construction || !page.chosen || page.aim) return null;
  const entry = snap.cells.find((c) => c.moves.includes(page.chosen));
  return entry && entry.moves.length > 1 ? entry.moves : null;
}

function cycleWays(step) {
  const ways = waysHere();
  if (!ways) return;
  const n = ways.length;
  choose(ways[(((ways.indexOf(page.chosen) + step) % n) + n) % n]);
  sayWays();
}

function sayWays() {
  const ways = waysHere();
  const more = ways ? ` (${ways.indexOf(page.chosen) + 1} of ${ways.length} ways here: wheel or R turns)` : '';
  pointerStatus(`${words(page.chosen)}${more} - click again to play it, Esc to cancel`);
}

// --- the name, the rematch, the tab's title and icon, the games this browser joined -------------------------------
el('name-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const answer = await call('POST', `${base}/name?${q}`, { name: el('name').value });
  if (!answer.ok) message(errorText(answer));
  el('name').blur();
});

el('rematch').addEventListener('click', async () => {
  const answer = await call('POST', `${base}/rematch?${q}`, {});
  if (!answer.ok) {
    message(errorText(answer));
    return;
  }
  el('rematch').hidden = true;
  el('rematch-link').href = answer.data.url;
  el('rematch-link').hidden = false;
});

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
  message('');
  const move = answer.data.move;
  page.hinted = move;
  hintText(`hint: ${words(move)}`);
  const parts = move.split(' ');
  // the hinted move is also shown on the table, as a click would choose it
  if (page.snapshot.construction && parts[0] === 'block' && await selectBlock(parts[1])) {
    chooseFromList(move);
    hintText(`hint: ${page.aim.current ? page.aim.current.words : move} (the block is drawn where it goes: `
      + 'click there, or Play)');
  } else if (page.snapshot.construction && (parts[0] === 'fig' || parts[0] === 'stone')) {
    choose(move);
    hintText(`hint: ${words(move)} (drawn on the table: click it to play it, or Play)`);
  } else if (page.pointer) {
    hintText(`hint: ${words(move)}${cardHint(move)}`);
    moves();
  } else if (page.snapshot.construction && ACTION_KEYS[move]) {
    // a move that names no place (skip, pass): its button beside the pointer's line is lit
    hintText(`hint: ${words(move)} (the button lit green: click it, or press ${ACTION_KEYS[move]})`);
    moves();
  } else {
    moves();
  }
});

// a card game's hint: its card lifted and where it goes lit (the walk of the move drawn); which card, where the
// hand holds equal ones
function cardHint(move) {
  const ptr = page.pointer;
  const card = ptr.showMove(move);
  if (!card) return '';
  page.chosen = move;
  draw(null);
  chosenBar();
  pointerStatus(ptr.status());
  return ` (${card.label} is lifted on the table and where it goes is lit${ptr.twinWords(card)}: click there, or Play)`;
}

el('undo').addEventListener('click', async () => {
  const answer = await call('POST', `${base}/undo?${q}`, {});
  if (!answer.ok) message(errorText(answer));
});
document.addEventListener('keydown', (e) => {
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
  // a focused button takes Enter and Space itself; the letter keys still work (S right after clicking Hint)
  if (e.target instanceof HTMLButtonElement && (e.key === 'Enter' || e.key === ' ')) return;
  if (e.key === 'Enter' && page.chosen) play(page.chosen);
  else if (e.key === 'Escape') clearSelection();
  else if ((e.key === 'r' || e.key === 'R') && page.aim) turn(e.shiftKey ? -1 : 1);
  else if ((e.key === 'r' || e.key === 'R') && waysHere()) cycleWays(e.shiftKey ? -1 : 1);
  else if (page.snapshot && page.snapshot.construction && page.snapshot.your_turn) {
    // the moves that name no place: S the step's skip (skip to the block move, leave it, keep the stone), P pass
    const text = Object.keys(ACTION_KEYS).find((t) => ACTION_KEYS[t] === e.key.toUpperCase());
    if (text && page.snapshot.moves.includes(text)) play(text);
  }
});

connect();
