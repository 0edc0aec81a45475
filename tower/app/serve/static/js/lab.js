// The tower lab page (docs/lab.md): build and change a tower by hand. Pointing stays on the page: the ghost follows
// the mouse, snapped to the 1-unit grid and to the top of whatever is under it, without asking the server; the
// server is asked once per edit (POST /api/lab/ID/edits) and answers with the new build, its problems, the
// verdict and the scene to draw. "Drop it" plays the server's PyBullet trajectory, interpolated here.
import * as THREE from 'three';
import { SceneView } from './scene3d.js';
import { call, errorText, el, item } from './api.js';
import { Aim, BlockPlacements } from './placement.js';

const GAP = 0.04;
const MOVED_RGB = 0xff6a00;            // outline of the blocks a drop moved
const REFUSED = [255, 0, 60];          // a refused place (viewer.scene.PROBLEM_RGB, the problems' signal colour)
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
  drop: null,          // the drop animation: {frames, moved, start, done, shown}
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
// a grid of the 1-unit (2 cm) columns over the table: where a click puts a block reads at once, also on an empty
// table (every second line a little darker: a block is 2 units wide)
let grid = null;
function drawGrid(table) {
  const key = table.join(',');
  if (grid && grid.userData.key === key) return;
  if (grid) {
    view.three.remove(grid);
    grid.traverse((o) => { if (o.geometry) o.geometry.dispose(); if (o.material) o.material.dispose(); });
  }
  const [x0, x1, y0, y1] = table;
  grid = new THREE.Group();
  grid.userData.key = key;
  for (const [even, rgb] of [[false, [196, 178, 150]], [true, [168, 150, 122]]]) {
    const pos = [];
    for (let x = Math.ceil(x0); x <= Math.floor(x1); x++) if ((x % 2 === 0) === even) pos.push(x, y0, 0, x, y1, 0);
    for (let y = Math.ceil(y0); y <= Math.floor(y1); y++) if ((y % 2 === 0) === even) pos.push(x0, y, 0, x1, y, 0);
    const geo = new THREE.BufferGeometry();
    geo.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
    const lines = new THREE.LineSegments(geo, new THREE.LineBasicMaterial({ color: srgb(rgb) }));
    lines.position.z = 0.003;
    grid.add(lines);
  }
  view.three.add(grid);
}

function srgb(rgb) {
  return new THREE.Color().setRGB(rgb[0] / 255, rgb[1] / 255, rgb[2] / 255, THREE.SRGBColorSpace);
}

function colourOf(name) {
  const pal = (page.state && page.state.scene.palette) || {};
  return pal[name] || KNOWN[name] || [200, 200, 200];
}

// the face colours' RGB before any scene names them (the same values as viewer.scene.PALETTE)
const KNOWN = { red: [206, 48, 42], yellow: [246, 200, 36], 'dark-blue': [28, 58, 150],
  'light-blue': [120, 196, 240], purple: [128, 62, 170], grey: [150, 150, 150] };

// A box of six face colours (FACES order: +x -x +y -y +z -z, which is also three.js's BoxGeometry group order).
function boxMesh(size, faces, opacity = 1) {
  const geo = new THREE.BoxGeometry(...size.map((v) => v - 2 * GAP));
  const mats = faces.map((f) => new THREE.MeshLambertMaterial({ color: srgb(colourOf(f)), transparent: opacity < 1,
    opacity, depthWrite: opacity >= 1 }));
  const mesh = new THREE.Mesh(geo, mats);
  mesh.add(new THREE.LineSegments(new THREE.EdgesGeometry(geo), new THREE.LineBasicMaterial({ color: 0x26262c })));
  return mesh;
}

function clear(group) {
  for (const child of [...group.children]) {
    group.remove(child);
    child.traverse((o) => {
      if (o.geometry) o.geometry.dispose();
      const mats = Array.isArray(o.material) ? o.material : o.material ? [o.material] : [];
      mats.forEach((m) => m.dispose());
    });
  }
}

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
  drawGrid(scene.table);
  const [lo, hi] = workArea(scene);
  const f = page.fitted;
  if (resetCamera || !f || lo.some((v, i) => v < f[0][i]) || hi.some((v, i) => v > f[1][i])) fitCamera();
}

// the blocks' bounds, and at least a 10 x 10 x 6 area of the table round the middle (an empty table is no
// unit box to zoom into)
function workArea(scene) {
  let lo = [-4, -4, 0], hi = [6, 6, 6];
  for (const b of scene.blocks) {
    lo = lo.map((v, i) => Math.min(v, b.origin[i] - 1));
    hi = hi.map((v, i) => Math.max(v, b.origin[i] + b.size[i] + 1));
  }
  return [lo, hi];
}

function fitCamera() {
  const real = view.scene;
  const [lo, hi] = workArea(real);
  page.fitted = [lo, hi];
  view.scene = { ...real, ghosts: [...real.ghosts, { origin: lo, size: hi.map((v, i) => v - lo[i]) }] };
  view.resetCamera();
  view.scene = real;
}

// --- physics overlays: the server draws them into the scene (viewer/overlays.py) when asked -------------------
// The weakest tilt direction comes with every answer; the forces, the removal map and a push on a clicked face are
// asked for once per build (GET /api/lab/ID/overlays) and drawn from the scene that comes back.
async function explain() {
  const st = page.state;
  if (!st) return;
  document.body.dataset.overlays = '';   // what the scene shows of the overlays: set once their answer is drawn
  const show = [];
  if (el('show-forces').checked) show.push('forces');
  if (el('show-removal').checked) show.push('removal');
  const asked = page.edits;    // the answers received so far: an edit answered meanwhile makes this one stale
  const push = page.push && page.push.edits === asked ? page.push.text : '';
  if (!show.length && !push) {
    const had = page.overlay && page.overlay.edits === asked;   // drawn with overlays that are now off
    page.overlay = null;
    legend([]);
    if (had) draw();
    return;
  }
  const q = new URLSearchParams({ show: show.join(','), push });
  working(1, show, push);
  let answer;
  try {
    answer = await call('GET', api(`/overlays?${q}`));
    // another lab job of this address is being worked out (the server runs one at a time): ask again, as long
    // as the build is still the one asked about
    for (let tries = 0; answer.status === 429 && answer.data.rule === 'lab-busy' && tries < 20; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      if (page.edits !== asked) return;
      answer = await call('GET', api(`/overlays?${q}`));
    }
  } finally {
    working(-1);
  }
  if (!answer.ok) { say(errorText(answer)); return; }
  if (page.edits !== asked) return;  // an edit came meanwhile: its own request asks again
  page.overlay = { edits: asked, scene: answer.data.scene };
  legend(answer.data.words);
  document.body.dataset.overlays = [...show, push ? 'push' : ''].filter(Boolean).join(',');
  draw();
}

// The forces and the removal map take seconds on a large build (one statics solve per block for the map): until
// the answer comes the page says it is working and the toggles wait (a second click would only ask again).
let overlayJobs = 0;
function working(delta, show = [], push = '') {
  overlayJobs = Math.max(0, overlayJobs + delta);
  const names = { forces: 'the contact forces', removal: 'the removal map' };
  const what = [...show.map((s) => names[s]), ...(push ? ['the push test'] : [])];
  if (delta > 0) el('working').textContent = `working out ${what.join(' and ')}…`;
  el('working').hidden = overlayJobs === 0;
  for (const id of ['show-forces', 'show-removal']) el(id).disabled = overlayJobs > 0 || page.failed;
  document.body.dataset.working = overlayJobs > 0 ? 'true' : 'false';
}

// the words of the overlays and what their colours mean (the scene's legend), for people and screen readers
function legend(words) {
  // without overlays, the build's own scene: a falling build's motion has a legend of its own
  const scene = page.overlay ? page.overlay.scene : (page.state && page.state.scene);
  const items = words.map((w) => {
    const li = item('li', w.trim());
    // the words are indented by two spaces a level (a heading, its lines, theirs): keep that as nesting
    const depth = Math.floor((w.length - w.trimStart().length) / 2);
    li.className = `depth-${Math.min(depth, 3)}`;
    return li;
  });
  for (const e of scene ? scene.legend : []) {
    const li = item('li', e.text, 'legend');
    const swatch = item('span', '', 'swatch');
    const c = scene.palette[e.colour] || [128, 128, 128];
    swatch.style.background = `rgb(${c.join(',')})`;
    li.prepend(swatch);
    items.push(li);
  }
  el('explain').replaceChildren(...items);
}

async function pushAt(hit) {
  // the hand moves into the face clicked: a click on a +x face pushes toward -x
  const n = hit.normal;
  if (Math.abs(n.z) > 0.5) { say('push test: click a side of a block, not its top'); return; }
  const direction = Math.abs(n.x) > 0.5 ? (n.x > 0 ? '-x' : '+x') : (n.y > 0 ? '-y' : '+y');
  page.push = { edits: page.edits, text: `${hit.block}:${direction}` };
  await explain();
  const words = el('explain').textContent;
  if (/push test/.test(words)) document.body.dataset.push = `${hit.block} ${direction}`;
}

el('show-forces').addEventListener('change', explain);
el('show-removal').addEventListener('change', explain);

// --- the palette: kinds, orientations, colours -----------------------------------------------------------------
function fillPalette() {
  const kinds = page.palette.kinds;
  el('kind').replaceChildren(...kinds.map((k) => {
    const o = item('option', k.name);
    o.value = k.name;
    return o;
  }));
  el('kind').value = 'cube';
  fillSizes();
  el('colour').replaceChildren(...['red', 'yellow', 'dark-blue', 'light-blue', 'purple'].map((c) => {
    const o = item('option', c);
    o.value = c;
    return o;
  }));
}

function kind() {
  return page.palette.kinds.find((k) => k.name === el('kind').value);
}

function fillSizes() {
  const k = kind();
  el('size').replaceChildren(...k.sizes.map((s) => {
    const o = item('option', `${s.join(' x ')}${s[2] === Math.max(...s) && s[2] > 2 ? ' (standing)' : ''}`);
    o.value = s.join('x');
    return o;
  }));
  fillTops();
}

function fillTops() {
  const tops = kind().tops[el('size').value];
  const was = el('top').value;
  el('top').replaceChildren(...tops.map((c) => {
    const o = item('option', c);
    o.value = c;
    return o;
  }));
  if (tops.includes(was)) el('top').value = was;
  fillFronts();
}

function chosenSize() {
  return el('size').value.split('x').map(Number);
}

// the face colours of the ghost of a new block: the default colouring turned to the chosen top (the server
// checks the real one; the ghost only has to look like it)
// A block's face colours (FACES order +x -x +y -y +z -z) with `top` on top and `front` facing the front (-y): the
// three pairs of opposite colours each on one axis, as every coloured block of the game has them (the server
// checks the pairs rule again). A grey block is grey all round.
const OPPOSITE = { red: 'yellow', yellow: 'red', 'dark-blue': 'light-blue', 'light-blue': 'dark-blue',
  purple: 'grey', grey: 'purple' };
const FACE_NAMES = ['+x', '-x', '+y', '-y', '+z', '-z'];

function fronts(top) {
  return ['red', 'yellow', 'dark-blue', 'light-blue', 'purple', 'grey'].filter((c) => c !== top && c !== OPPOSITE[top]);
}

function ghostFaces(top, front) {
  if (kind().name === 'grey') return Array(6).fill('grey');
  if (!fronts(top).includes(front)) front = fronts(top)[0];
  const side = ['red', 'dark-blue', 'purple'].find((c) => ![top, OPPOSITE[top], front, OPPOSITE[front]].includes(c));
  return [side, OPPOSITE[side], OPPOSITE[front], front, top, OPPOSITE[top]];
}

function fillFronts() {
  const grey = kind().name === 'grey';
  const options = grey ? ['grey'] : fronts(el('top').value);
  const was = el('front').value;
  el('front').replaceChildren(...options.map((c) => {
    const o = item('option', c);
    o.value = c;
    return o;
  }));
  if (options.includes(was)) el('front').value = was;
  el('front').disabled = grey;
}

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
    const mesh = why ? refusedMesh(shape.size) : boxMesh(shape.size, shape.faces, 0.6);
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
    const mesh = boxMesh(FIGURE.map((v) => v + 2 * GAP), Array(6).fill(colour), 0.7);
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

// the ghost of a refused place: the refusal colour (viewer.scene.PROBLEM_RGB), see-through, with its edges
function refusedMesh(size) {
  const geo = new THREE.BoxGeometry(...size.map((v) => v - 2 * GAP));
  const mesh = new THREE.Mesh(geo, new THREE.MeshLambertMaterial({ color: srgb(REFUSED), transparent: true,
    opacity: 0.45, depthWrite: false }));
  mesh.add(new THREE.LineSegments(new THREE.EdgesGeometry(geo), new THREE.LineBasicMaterial({ color: srgb(REFUSED) })));
  return mesh;
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

// --- drop it: the PyBullet trajectory, interpolated --------------------------------------------------------------
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
  clear(dropGroup);
  // the trajectory is the scene's animation (tower-scene/1 `frames`, grid units); its blocks are drawn one mesh
  // each, so every frame only moves them
  const scene = data.scene;
  const t = scene.table;   // the table stays: the blocks fall onto it
  const table = new THREE.Mesh(new THREE.PlaneGeometry(t[1] - t[0], t[3] - t[2]),
    new THREE.MeshBasicMaterial({ color: srgb(scene.fixed.table) }));
  table.position.set((t[0] + t[1]) / 2, (t[2] + t[3]) / 2, -0.01);
  dropGroup.add(table);
  const meshes = new Map();
  for (const b of scene.blocks) {
    const mesh = boxMesh(b.size, b.faces);
    dropGroup.add(mesh);
    meshes.set(b.id, mesh);
  }
  view.root.visible = false;
  page.drop = { frames: scene.frames, moved: scene.moved, meshes, start: performance.now(), shown: 0, done: false };
  document.body.dataset.dropping = 'true';
  requestAnimationFrame(stepDrop);
}

const qa = new THREE.Quaternion(), qb = new THREE.Quaternion();

function stepDrop(now) {
  const d = page.drop;
  if (!d) return;
  const frames = d.frames;
  const t = (now - d.start) / 1000;
  let k = 0;
  while (k < frames.length - 2 && frames[k + 1].t <= t) k++;
  const a = frames[k], b = frames[Math.min(k + 1, frames.length - 1)];
  const u = b.t > a.t ? Math.min(Math.max((t - a.t) / (b.t - a.t), 0), 1) : 1;
  for (const [id, mesh] of d.meshes) {
    const pa = a.poses[id], pb = b.poses[id];
    if (!pa || !pb) continue;
    mesh.position.set(...pa[0].map((v, i) => v + (pb[0][i] - v) * u));
    qa.set(...pa[1]);
    qb.set(...pb[1]);
    mesh.quaternion.copy(qa.slerp(qb, u));
  }
  d.shown += 1;
  document.body.dataset.dropFrames = String(d.shown);
  view.render();
  if (t < frames[frames.length - 1].t) {
    requestAnimationFrame(stepDrop);
    return;
  }
  d.done = true;
  for (const id of d.moved) {
    const mesh = d.meshes.get(id);
    if (!mesh) continue;
    const p = mesh.geometry.parameters;
    const edges = new THREE.EdgesGeometry(new THREE.BoxGeometry(p.width + 0.12, p.height + 0.12, p.depth + 0.12));
    mesh.add(new THREE.LineSegments(edges, new THREE.LineBasicMaterial({ color: MOVED_RGB })));
  }
  document.body.dataset.dropping = 'done';
  el('aim').textContent = d.moved.length
    ? `${d.moved.length} block${d.moved.length === 1 ? '' : 's'} moved (outlined); click or Esc to go back to the build`
    : 'nothing moved; click or Esc to go back';
  view.render();
}

function endDrop() {
  if (!page.drop) return;
  page.drop = null;
  clear(dropGroup);
  view.root.visible = true;
  document.body.dataset.dropping = 'false';
  view.render();
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
  fillPalette();
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
