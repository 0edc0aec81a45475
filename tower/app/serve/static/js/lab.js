// The tower lab page (docs/lab.md): build and change a tower by hand. Pointing stays on the page: the ghost follows
// the mouse, snapped to the 1-unit grid and to the top of whatever is under it, without asking the server; the
// server is asked once per edit (POST /api/lab/ID/edits) and answers with the new build, its problems, the
// verdict and the scene to draw. "Drop it" plays the server's PyBullet trajectory, interpolated here.
import * as THREE from 'three';
import { SceneView } from './scene3d.js';
import { call, errorText, el, item } from './api.js';
import { Aim, BlockPlacements } from './placement.js';
import { DropPlayer, GAP, Grid, boxMesh, clear, refusedMesh, workArea } from './labdraw.js';
import { overlays } from './laboverlays.js';
import { FACE_NAMES, chosenSize, fillFronts, fillPalette, fillSizes, fillTops, ghostFaces, kind } from './labpalette.js';

const FIGURE = [0.6, 0.6, 1.25];       // a figure's footprint and height (tower.app.stability)

// everything the page knows; also read by the end-to-end tests
const page = {
  id: null,
  state: null,         // the server's last answer: build, analysis, scene, undo/redo
  palette: null,       // the kinds, their orientations and top colours (GET /api/lab)
  tool: 'add',
  selected: null,      // the block selected (local: selection is no edit)
  moving: false,       // the selected block follows the pointer until a click puts it down
  aim: null,           // what a click would do now: {op, ...} or null
  busy: false,         // an edit on its way to the server
  edits: 0,            // answers received
  overlay: null,       // the scene with the physics overlays asked for: {edits, scene}
  push: null,          // the push test asked for: {edits, text: "BLOCK:DIR"}
  queue: [],           // clicks made while an edit was on its way: pointer positions, replayed in order
  dragging: null,      // a block pressed on with the select tool: {block, x, y, started}
  refusing: null,      // where the block in hand would be refused: {key, refused: {text: "rule: words"} | null}
  failed: false,       // the lab could not be opened (a bad link): its controls are off
  refusedEdits: 0,     // edits the server refused (each said in the message line)
  view: null,
};
window.towerLab = page;

const view = new SceneView(el('view'), { covered: () => el('hud').offsetHeight + el('hud').offsetTop });
page.view = view;
const ghost = new THREE.Group();       // the ghost lives outside the scene's root: pointing redraws only it
view.three.add(ghost);
const dropGroup = new THREE.Group();
view.three.add(dropGroup);
const grid = new Grid(view.three);
const dropper = new DropPlayer(view, dropGroup, (moved) => {
  el('aim').textContent = moved.length
    ? `${moved.length} block${moved.length === 1 ? '' : 's'} moved (outlined); click or Esc to go back to the build`
    : 'nothing moved; click or Esc to go back';
});
// the drop shown now (labdraw.js: DropPlayer), or null
Object.defineProperty(page, 'drop', { get: () => dropper.d, enumerable: true });
// the colours the scene names (the ghost's blocks are drawn in them)
const colours = () => (page.state && page.state.scene.palette) || {};
// --- the server ------------------------------------------------------------------------------------------------
const api = (path = '') => `/api/lab/${encodeURIComponent(page.id)}${path}`;

async function send(method, path, body) {
  page.busy = true;
  document.body.dataset.busy = 'true';
  const answer = await call(method, path, body);
  page.busy = false;
  document.body.dataset.busy = 'false';
  queued();
  if (!answer.ok) {
    say(errorText(answer));
    return null;
  }
  say('');
  return answer.data;
}

async function edit(op) {
  if (page.failed) return null;
  const { refused: _said, ...sent } = op;   // what the ghost said is the page's own, not part of the edit
  const data = await send('POST', api('/edits'), sent);
  if (data) show(data);
  else {
    page.refusedEdits += 1;
    document.body.dataset.refusedEdits = String(page.refusedEdits);
    replayQueue();   // a refused edit answers its click too: the next waiting click goes on
  }
  return data;
}

async function start(body) {
  const data = await send('POST', '/api/lab', body);
  if (!data) return;
  if (page.failed) {   // a new lab: its controls are on again
    page.failed = false;
    delete document.body.dataset.fatal;
    for (const b of document.querySelectorAll('#panel button, #panel input, #panel select')) b.disabled = false;
    el('download').removeAttribute('aria-disabled');
  }
  page.selected = null;
  page.moving = false;
  history.replaceState(null, '', data.url);
  show(data, true);
}

function say(text) {
  el('message').textContent = text;
  document.body.dataset.message = text;
}

// --- showing an answer -----------------------------------------------------------------------------------------
function show(data, resetCamera = false) {
  endDrop();
  const first = !page.state;
  page.state = data;
  page.id = data.id;
  page.edits += 1;
  if (page.selected && !data.build.blocks.some((b) => b.id === page.selected)) {
    page.selected = null;
    page.moving = false;
  }
  draw(first || resetCamera);
  const a = data.analysis;
  const stab = a.stability;
  const verdict = stab ? stab.verdict : 'empty';
  document.body.dataset.verdict = verdict;
  document.body.dataset.legal = String(a.legal);
  document.body.dataset.blocks = String(data.build.blocks.length);
  document.body.dataset.edits = String(data.edits);
  document.body.dataset.answers = String(page.edits);
  el('verdict').textContent = a.words.filter((w) => w.startsWith('stability')).join(' ') || a.words[0];
  el('verdict').className = `verdict ${verdict}`;
  el('drop-words').textContent = '';
  // errors in red, warnings (a build the box could not hold: block-count) in amber, said as warnings
  el('problems').replaceChildren(...a.violations.map((v) => (v.level === 'warning'
    ? item('li', `warning: ${v.rule}: ${v.message}`, 'warning') : item('li', `${v.rule}: ${v.message}`))));
  el('hint').hidden = data.build.blocks.length > 0;
  el('undo').disabled = !data.can_undo;
  el('redo').disabled = !data.can_redo;
  el('undo').title = data.undo ? `undo: ${data.undo} (Ctrl+Z)` : 'nothing to undo';
  el('redo').title = data.redo ? `redo: ${data.redo} (Ctrl+Y)` : 'nothing to redo';
  el('history').textContent = `${data.edits} edit${data.edits === 1 ? '' : 's'}` + (data.did ? `; last: ${data.did}` : '');
  el('rules').value = data.rules;
  el('download').href = api('/build');
  const link = new URL(data.url, location.href).href;
  el('link').href = link;
  el('link').textContent = link;
  selection();
  if (pointer) aimAt(...pointer);
  explain();
  replayQueue();
}

// the server's scene with this page's own selection outlined; the camera is fitted again when the build grows
// out of the part of the table it was fitted to
function draw(resetCamera = false) {
  const o = page.overlay;
  const scene = structuredClone(o && o.edits === page.edits ? o.scene : page.state.scene);
  for (const b of scene.blocks) b.selected = b.id === page.selected;
  if (page.moving && page.selected) {
    // the block being moved leaves its place while the ghost shows where it goes: it is never in its own way,
    // and the pointer cannot aim at its own top
    scene.blocks = scene.blocks.filter((b) => b.id !== page.selected);
    scene.stones = scene.stones.filter((st) => st.block !== page.selected);
  }
  el('hud').textContent = [scene.title, ...scene.lines].filter(Boolean).join('\n');
  view.show(scene);
  grid.draw(scene.table);
  const [lo, hi] = workArea(scene);
  const f = page.fitted;
  if (resetCamera || !f || lo.some((v, i) => v < f[0][i]) || hi.some((v, i) => v > f[1][i])) fitCamera();
}

function fitCamera() {
  const real = view.scene;
  const [lo, hi] = workArea(real);
  page.fitted = [lo, hi];
  view.scene = { ...real, ghosts: [...real.ghosts, { origin: lo, size: hi.map((v, i) => v - lo[i]) }] };
  view.resetCamera();
  view.scene = real;
}

// --- physics overlays (laboverlays.js) ---------------------------------------------------------------------------
const { explain, pushAt } = overlays({ page, api, say: (text) => say(text), draw: () => draw() });

// --- pointing: the ghost ---------------------------------------------------------------------------------------
const ray = new THREE.Raycaster();
const TABLE = new THREE.Plane(new THREE.Vector3(0, 0, 1), 0);

// where the pointer meets the scene: {point, normal, block} (block: the id of the block hit, or null: the table)
function hitAt(clientX, clientY) {
  const rect = view.renderer.domElement.getBoundingClientRect();
  const ndc = new THREE.Vector2(((clientX - rect.left) / rect.width) * 2 - 1,
    -((clientY - rect.top) / rect.height) * 2 + 1);
  ray.setFromCamera(ndc, view.camera);
  const meshes = view.pickables.filter((o) => o.userData.layer === 'blocks');
  const hits = ray.intersectObjects(meshes, false);
  if (hits.length) {
    const h = hits[0];
    const index = h.object.userData.owner[h.faceIndex];
    return { point: h.point, normal: h.face.normal.clone().round(), block: view.scene.blocks[index].id };
  }
  const p = new THREE.Vector3();
  if (!ray.ray.intersectPlane(TABLE, p)) return null;
  return { point: p, normal: new THREE.Vector3(0, 0, 1), block: null };
}

// the top of whatever is under a footprint (the table: 0), leaving out one block (the one being moved)
function restingZ(x, y, sx, sy, without) {
  let z = 0;
  for (const b of page.state.build.blocks) {
    if (b.id === without) continue;
    const [bx, by, bz] = b.origin, [bsx, bsy, bsz] = b.size;
    if (bx < x + sx && x < bx + bsx && by < y + sy && y < by + bsy) z = Math.max(z, bz + bsz);
  }
  return z;
}

// --- aiming a block: the shared placement controller (placement.js, the twin of viewer/placement.py) ------------
// The placements of the block in hand (a new block: every orientation of its kind, the chosen one first; a moved
// block: as it lies) at every corner near the build, each resting on the highest column under it, are made here
// once per build and choice; pointing then only looks them up (Aim), as a game page aims a block.
const LAB_LO = -100, LAB_BOARD = 200;  // the lab's table: |x|, |y| <= 100 (tower/app/lab/controller.py)
const NEAR = 12;                       // columns round the build offered to the pointer
let aiming = null;

// column -> the top of the highest block over it, the block in hand left out (column_heights in viewer/placement.py)
function columnHeights(without) {
  const h = new Map();
  for (const b of page.state.build.blocks) {
    if (b.id === without) continue;
    for (let x = b.origin[0]; x < b.origin[0] + b.size[0]; x++) {
      for (let y = b.origin[1]; y < b.origin[1] + b.size[1]; y++) {
        const k = `${x},${y}`;
        h.set(k, Math.max(h.get(k) || 0, b.origin[2] + b.size[2]));
      }
    }
  }
  return [...h].map(([k, v]) => [...k.split(',').map(Number), v]);
}

function placementsInHand() {
  const moving = page.tool === 'select' && page.moving && page.selected;
  const key = [page.edits, moving ? page.selected : 'new', el('kind').value, el('size').value, el('top').value,
    el('front').value].join('|');
  if (aiming && aiming.key === key) return aiming;
  let shapes, block;
  if (moving) {
    const b = page.state.scene.blocks.find((x) => x.id === page.selected);
    block = b.id;
    shapes = [{ size: b.size, top: b.faces[4], faces: b.faces }];
  } else {
    block = 'new';
    const top = el('top').value, first = chosenSize();
    const sizes = [first, ...kind().sizes.filter((s) => s.join('x') !== first.join('x'))];
    const faces = ghostFaces(top, el('front').value);
    shapes = sizes.map((size) => ({ size, top, faces }));
  }
  const blocks = page.state.build.blocks;
  const lo = [Math.min(0, ...blocks.map((b) => b.origin[0])), Math.min(0, ...blocks.map((b) => b.origin[1]))];
  const hi = [Math.max(2, ...blocks.map((b) => b.origin[0] + b.size[0])),
    Math.max(2, ...blocks.map((b) => b.origin[1] + b.size[1]))];
  const clamp = (v) => Math.max(LAB_LO, Math.min(LAB_LO + LAB_BOARD, v));
  const area = [clamp(lo[0] - NEAR), clamp(lo[1] - NEAR), clamp(hi[0] + NEAR), clamp(hi[1] + NEAR)];
  const figures = (page.state.build.figures || []).map((f) => f.cell.slice(0, 2));
  const ps = BlockPlacements.resting(block, shapes, columnHeights(moving ? block : null), area, LAB_LO, LAB_BOARD,
    figures);
  aiming = { key, ps, aim: new Aim(ps), block, area, kind: el('kind').value };
  askRefusals(aiming);
  return aiming;
}

// Where the rules would refuse the block in hand: asked once per build and block in hand (the server checks each
// placement as its edit would be checked), so the ghost says it before the click. The answer lists the placements
// that touch something; those that touch nothing share one judgement per shape (`elsewhere`, see refusalOf).
async function askRefusals(a) {
  if (page.refusing && page.refusing.key === a.key) return;
  const mine = { key: a.key, refused: null, elsewhere: [] };
  page.refusing = mine;
  const body = { block: a.block, kind: a.kind, area: a.area,
    shapes: a.ps.shapes.map((sh) => ({ size: sh.size, top: sh.top, faces: sh.faces })) };
  const answer = await call('POST', api('/refusals'), body);
  if (page.refusing !== mine) return;       // the build or the block in hand changed meanwhile
  mine.refused = answer.ok ? answer.data.refused : {};
  mine.elsewhere = answer.ok ? answer.data.elsewhere : [];
  document.body.dataset.refusals = String(Object.keys(mine.refused).length);
  if (pointer && !page.dragging) aimAt(...pointer);
  else if (page.dragging && page.dragging.at) aimAt(...page.dragging.at);
}

// what the rules say of placement `p` of the block in hand: "rule: words", null (it may go), undefined (not known yet)
function refusalOf(a, p) {
  const r = page.refusing;
  if (!r || r.key !== a.key || r.refused === null) return undefined;
  return a.ps.refusal(p, r.refused, r.elsewhere);
}
// for tests: the block in hand as asked about, and at each of its placements whether it touches something and
// what the ghost would say
page.refusalsInHand = () => (aiming && {
  block: aiming.block, kind: aiming.kind, area: aiming.area, shapes: aiming.ps.shapes,
  said: aiming.ps.placements.map((p) => [p.text, aiming.ps.touches(p), refusalOf(aiming, p)]) });

function aimAt(clientX, clientY) {
  page.aim = null;
  clear(ghost);
  if (!page.state || page.drop) return finishAim('');
  const hit = hitAt(clientX, clientY);
  if (!hit) return finishAim('');
  if (page.tool === 'add' || (page.tool === 'select' && page.moving)) {
    const a = placementsInHand();
    a.aim.point([hit.point.x, hit.point.y, hit.point.z], [hit.normal.x, hit.normal.y, hit.normal.z]);
    const cur = a.aim.current;
    if (!cur) return finishAim('nothing can go here: point nearer the build');
    const shape = a.ps.shapes[cur.shape];
    const [x, y, z] = cur.origin;
    const why = refusalOf(a, cur);
    // a place the rules refuse: the ghost in the refusal colour, the rule beside the pointer
    const mesh = why ? refusedMesh(shape.size) : boxMesh(shape.size, shape.faces, colours(), 0.6);
    mesh.position.set(x + shape.size[0] / 2, y + shape.size[1] / 2, z + shape.size[2] / 2);
    ghost.add(mesh);
    const checking = why === undefined && page.state.rules !== 'free' ? ' (checking the rules...)' : '';
    if (a.block !== 'new') {
      page.aim = { op: 'move', block: a.block, origin: [x, y, z], refused: why || null };
      if (why) return finishAim(refusedHere(a.block, why), why);
      const how = page.dragging ? 'release' : 'click';
      return finishAim(`${how} to put ${a.block} down at (${x}, ${y}, ${z})${checking}`);
    }
    page.aim = { op: 'add', kind: el('kind').value, origin: [x, y, z], size: shape.size,
      faces: Object.fromEntries(FACE_NAMES.map((f, i) => [f, shape.faces[i]])), refused: why || null };
    if (why) return finishAim(refusedHere(`the new ${el('kind').value.replace('-', ' ')}`, why), why);
    return finishAim(`click to add a ${el('kind').value} ${shape.size.join('x')} at (${x}, ${y}, ${z}), ${shape.top} `
      + `on top (R turns it)${checking}`);
  }
  if (page.tool === 'figure') {
    const cx = Math.floor(hit.point.x + 0.5 * hit.normal.x), cy = Math.floor(hit.point.y + 0.5 * hit.normal.y);
    const z = restingZ(cx, cy, 1, 1, null);
    const colour = el('colour').value;
    const mesh = boxMesh(FIGURE.map((v) => v + 2 * GAP), Array(6).fill(colour), colours(), 0.7);
    mesh.position.set(cx + 0.5, cy + 0.5, z + FIGURE[2] / 2);
    ghost.add(mesh);
    page.aim = { op: 'figure', colour, cell: [cx, cy, z] };
    return finishAim(`click to put the ${colour} figure at (${cx}, ${cy}, ${z})`);
  }
  if (page.tool === 'stone' && hit.block) {
    page.aim = { op: 'stone', colour: el('colour').value, block: hit.block };
    return finishAim(`click to lay the ${el('colour').value} stone on ${hit.block}`);
  }
  if (page.tool === 'push' && hit.block) {
    page.aim = { push: hit };
    return finishAim(`click to push ${hit.block} here`);
  }
  if (page.tool === 'select' && hit.block) {
    page.aim = { select: hit.block };
    return finishAim(`click to select ${hit.block}`);
  }
  return finishAim('');
}

// "d1 cannot go here: RULE: WORDS", or, where the words name the block already, "not here: RULE: WORDS" (once)
function refusedHere(name, why) {
  const named = name.includes(' ') ? why.includes(name) : why.split(/[^\w-]+/).includes(name);
  return named ? `not here: ${why}` : `${name} cannot go here: ${why}`;
}

function finishAim(text, refused = null) {
  el('aim').textContent = text;
  el('aim').classList.toggle('refused', !!refused);
  document.body.dataset.aim = text;
  document.body.dataset.refused = refused || '';
  const tip = el('tip-text');
  tip.hidden = !refused || !pointer;
  if (refused && pointer) {
    tip.textContent = `refused here: ${refused}`;
    tip.style.left = `${pointer[0] + 16}px`;
    tip.style.top = `${pointer[1] + 18}px`;
  }
  view.render();
}

let down = null;
let pointer = null;    // the last pointer position over the canvas: the ghost is aimed again after each edit
const canvas = view.renderer.domElement;
canvas.addEventListener('pointermove', (e) => {
  pointer = [e.clientX, e.clientY];
  const d = page.dragging;
  if (d && e.buttons) {
    if (!d.started && Math.hypot(e.clientX - d.x, e.clientY - d.y) >= 5) {
      // a drag on a block moves it: it leaves its place and follows the pointer as the ghost
      d.started = true;
      page.selected = d.block;
      page.moving = true;
      draw();
      selection();
    }
    if (d.started) {
      d.at = [e.clientX, e.clientY];
      aimAt(e.clientX, e.clientY);
    }
    return;
  }
  if (!e.buttons) aimAt(e.clientX, e.clientY);
});
canvas.addEventListener('pointerleave', () => {
  pointer = null;
  if (page.dragging) return;
  clear(ghost);
  page.aim = null;
  finishAim('');
});
// the select tool: a press on a block may start a drag, so the camera must not start orbiting (the capture phase
// on the container runs before the camera's own handler on the canvas)
el('view').addEventListener('pointerdown', (e) => {
  if (e.button !== 0 || page.tool !== 'select' || !page.state || page.drop || page.failed) return;
  const hit = hitAt(e.clientX, e.clientY);
  if (!hit || !hit.block) return;
  page.dragging = { block: hit.block, x: e.clientX, y: e.clientY, started: false, at: null };
  view.controls.enabled = false;
  canvas.setPointerCapture(e.pointerId);   // the drag's moves and its release come here, also off the canvas
}, { capture: true });
// a release the canvas did not get (outside the window): the drag ends where the pointer was last seen
window.addEventListener('pointerup', () => {
  const d = page.dragging;
  if (!d) return;
  page.dragging = null;
  view.controls.enabled = true;
  if (d.started && d.at) endDrag(...d.at);
});
canvas.addEventListener('pointerdown', (e) => { down = [e.clientX, e.clientY, e.button]; });
canvas.addEventListener('pointerup', (e) => {
  const d = page.dragging;
  if (d) {
    page.dragging = null;
    view.controls.enabled = true;
    if (d.started) {
      down = null;
      endDrag(e.clientX, e.clientY);
      return;
    }
  }
  // a click, not the end of an orbit drag
  if (!down || down[2] !== 0 || Math.hypot(e.clientX - down[0], e.clientY - down[1]) >= 5) return;
  down = null;
  if (page.busy) {
    queueClick(e.clientX, e.clientY);
    return;
  }
  aimAt(e.clientX, e.clientY);
  click();
});

// the end of a drag: the block goes where the ghost is (the server judges it), or back where it was
async function endDrag(x, y) {
  aimAt(x, y);
  const aim = page.aim;
  if (!aim || aim.op !== 'move' || page.busy) {
    page.moving = false;
    draw();
    selection();
    say(aim ? '' : 'nothing can go there: the block stays where it was');
    return;
  }
  const done = await edit(aim);
  page.moving = false;
  if (done) page.selected = aim.block;
  draw();
  selection();
}

// Clicks made while an edit is on its way wait their turn (each is aimed again once the build it acts on is
// shown); the page says how many wait.
const QUEUE_MAX = 20;
function queueClick(x, y) {
  if (page.queue.length >= QUEUE_MAX) {
    say(`${QUEUE_MAX} clicks are waiting already: this one is dropped`);
    return;
  }
  page.queue.push([x, y]);
  queued();
}

function queued() {
  const n = page.queue.length;
  document.body.dataset.queued = String(n);
  el('aim').dataset.queued = n ? `${n} click${n > 1 ? 's' : ''} waiting for the last edit's answer` : '';
  if (n) el('aim').textContent = el('aim').dataset.queued;
}

function replayQueue() {
  if (page.busy || !page.queue.length) return;
  const [x, y] = page.queue.shift();
  queued();
  aimAt(x, y);
  click();
}

async function click() {
  if (!page.state || page.failed) return;
  if (page.busy) return;
  if (page.drop) { endDrop(); draw(); return; }
  const aim = page.aim;
  if (!aim) {
    if (page.tool === 'select') { page.selected = null; page.moving = false; draw(); selection(); }
    return;
  }
  if (aim.push) {
    await pushAt(aim.push);
    return;
  }
  if (aim.select) {
    page.selected = aim.select;
    page.moving = false;
    draw();
    selection();
    return;
  }
  const done = await edit(aim);
  if (done && aim.op === 'move') page.moving = false;
  if (done && aim.op === 'add') page.selected = null;
  if (done) draw();
  selection();
}

// --- the selection ---------------------------------------------------------------------------------------------
function selection() {
  const sel = page.selected;
  for (const id of ['move', 'turn', 'tip', 'delete']) el(id).disabled = !sel;
  el('move').textContent = page.moving ? 'Moving: click where' : 'Move';
  el('selected').textContent = sel ? `Selected: ${sel}` : 'Click a block to select it.';
  document.body.dataset.selected = sel || '';
}

async function selectedEdit(op) {
  if (!page.selected) return;
  const data = await edit({ ...op, block: page.selected });
  if (data) draw();
}

el('move').addEventListener('click', () => { page.moving = !!page.selected && !page.moving; draw(); selection(); });
el('turn').addEventListener('click', () => selectedEdit({ op: 'turn', axis: 'z' }));
el('tip').addEventListener('click', () => selectedEdit({ op: 'turn', axis: 'x' }));
el('delete').addEventListener('click', () => selectedEdit({ op: 'delete' }));

// --- tools, rules, start, undo ---------------------------------------------------------------------------------
function setTool(tool) {
  page.tool = tool;
  page.moving = false;
  for (const r of document.querySelectorAll('input[name=tool]')) r.checked = r.value === tool;
  el('add-box').hidden = tool !== 'add';
  el('select-box').hidden = tool !== 'select';
  el('piece-box').hidden = tool !== 'figure' && tool !== 'stone';
  el('remove-piece').textContent = tool === 'stone' ? 'Take the stone away' : 'Take the figure away';
  document.body.dataset.tool = tool;
  clear(ghost);
  view.render();
  selection();
}

for (const r of document.querySelectorAll('input[name=tool]')) r.addEventListener('change', () => setTool(r.value));
el('kind').addEventListener('change', fillSizes);
el('size').addEventListener('change', fillTops);
el('top').addEventListener('change', fillFronts);
el('remove-piece').addEventListener('click', () => edit({ op: page.tool === 'stone' ? 'unstone' : 'unfigure',
  colour: el('colour').value }));
el('rules').addEventListener('change', async () => {
  const data = await send('POST', api('/rules'), { rules: el('rules').value });
  if (data) show(data);
});
el('new-empty').addEventListener('click', () => start({ start: 'empty', rules: el('rules').value }));
el('new-random').addEventListener('click', () => start({ start: 'random', seed: Math.floor(Math.random() * 1e6),
  rules: el('rules').value }));
el('open-file').addEventListener('click', () => el('upload').click());
el('upload').addEventListener('change', async () => {
  const file = el('upload').files[0];
  if (!file) return;
  let doc;
  try {
    doc = JSON.parse(await file.text());
  } catch {
    say(`${file.name}: not JSON`);
    return;
  }
  // on a lab that could not be opened, the file starts a new lab
  const answer = page.failed ? await call('POST', '/api/lab', { build: doc, rules: el('rules').value })
    : await call('POST', api('/edits'), { op: 'load', build: doc });
  el('upload').value = '';
  if (answer.ok && page.failed) {
    await start({ build: doc, rules: el('rules').value });
    return;
  }
  if (answer.ok) {
    say('');
    show(answer.data, true);
  } else {
    // one line naming the place and the problem, as `tower check FILE` says it (or the rule that refuses the
    // build it holds); the lab is unchanged
    const d = answer.data || {};
    const what = d.rule && answer.status === 409 ? `${d.rule}: ` : d.where ? `at ${d.where}: ` : '';
    say(`${file.name}: ${what}${d.error || `error ${answer.status}`}`);
  }
});

async function undo(which) {
  if (page.busy) return;
  const data = await send('POST', api(`/${which}`), {});
  if (data) show(data);
}

el('undo').addEventListener('click', () => undo('undo'));
el('redo').addEventListener('click', () => undo('redo'));
el('reset-view').addEventListener('click', () => fitCamera());
el('drop').addEventListener('click', () => drop());

document.addEventListener('keydown', (e) => {
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
  const key = e.key.toLowerCase();
  if ((e.ctrlKey || e.metaKey) && key === 'z') {
    e.preventDefault();
    undo(e.shiftKey ? 'redo' : 'undo');
  } else if ((e.ctrlKey || e.metaKey) && key === 'y') {
    e.preventDefault();
    undo('redo');
  } else if (e.ctrlKey || e.metaKey || e.altKey) {
    return;
  } else if (key === 'r' && page.tool === 'add') {
    // the next orientation: the shared controller's cycle where the pointer is, and the choice in the panel
    const opts = [...el('size').options];
    el('size').value = opts[(opts.findIndex((o) => o.selected) + 1) % opts.length].value;
    fillTops();
    if (pointer) aimAt(...pointer);
  } else if (key === 't') {
    selectedEdit({ op: 'turn', axis: 'z' });
  } else if (key === 'm' && page.selected) {
    page.moving = true;
    draw();
    selection();
  } else if (e.key === 'Delete' || e.key === 'Backspace') {
    selectedEdit({ op: 'delete' });
  } else if (e.key === 'Escape') {
    page.selected = null;
    page.moving = false;
    endDrop();
    if (page.state) draw();
    selection();
  } else if (key === 'a') setTool('add');
  else if (key === 's') setTool('select');
  else if (key === 'f') setTool('figure');
  else if (key === 'p') setTool('push');
  else if (key === 'd') drop();
});

// --- drop it: the PyBullet trajectory, interpolated (labdraw.js: DropPlayer) ------------------------------------
async function drop() {
  if (page.busy || !page.state || page.drop) return;
  el('drop').disabled = true;
  say('dropping: the server simulates...');
  const data = await send('POST', api('/drop'), {});
  el('drop').disabled = false;
  if (!data) return;
  say('');
  el('drop-words').textContent = data.words;
  document.body.dataset.dropped = data.moved.join(',');
  document.body.dataset.dropVerdict = data.stability.verdict;
  dropper.play(data.scene);
}

function endDrop() {
  dropper.stop();
}

// A lab that could not be opened (a bad or stale link): nothing to edit, so the controls that would edit it are
// off; a new lab can still be started or a file opened.
function failed(text) {
  page.failed = true;
  document.body.dataset.fatal = text;
  for (const b of document.querySelectorAll('#panel button, #panel input, #panel select')) {
    if (!['new-empty', 'new-random', 'open-file', 'upload'].includes(b.id)) b.disabled = true;
  }
  el('download').removeAttribute('href');
  el('download').setAttribute('aria-disabled', 'true');
  el('hint').hidden = true;
  say(`${text}: start a new lab below`);
}

// --- start -----------------------------------------------------------------------------------------------------
async function main() {
  const pal = await call('GET', '/api/lab');
  page.palette = pal.data;
  fillPalette(page.palette);
  setTool('add');
  const parts = location.pathname.split('/').filter(Boolean);
  if (parts.length === 2) {
    page.id = decodeURIComponent(parts[1]);
    const data = await send('GET', api());
    if (data) show(data, true);
    else failed(el('message').textContent);
  } else {
    await start({ start: 'empty' });
  }
  document.body.dataset.ready = 'true';
}

main();
