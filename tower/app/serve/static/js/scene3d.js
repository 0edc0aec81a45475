// Draws a `tower-scene/1` document (viewer/scene_json.py: the pure scene the desktop viewer draws) with three.js:
// the same layers, colours, shapes and camera presets as viewer/layers.py and viewer/renderer.py, plus orbit/zoom, picking and a short
// animation when pieces move. Grid units; z is up, as in the scene.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/OrbitControls.js';

const GAP = 0.04;                      // blocks shrink by this much per side, as on the desktop
const EDGE = [38, 38, 44];
const MOVABLE = [255, 190, 40];
const TARGET = [40, 200, 90];
const HOVER = [0, 170, 255];
const CURRENT = [255, 215, 0];
const LADDER_WOOD = [120, 86, 50];
const FOV = 30;
const ANIM_MS = 650;
const HOP = 1.2;                       // grid units a moving piece rises mid-way (viewer/motion.py)
// box corners (bit 0 = +x, bit 1 = +y, bit 2 = +z) of each face in FACES order (+x -x +y -y +z -z)
const QUADS = [[1, 3, 7, 5], [0, 4, 6, 2], [2, 6, 7, 3], [0, 1, 5, 4], [4, 5, 7, 6], [0, 2, 3, 1]];
const EDGES = [[0, 1], [2, 3], [4, 5], [6, 7], [0, 2], [1, 3], [4, 6], [5, 7], [0, 4], [1, 5], [2, 6], [3, 7]];

function linear(rgb) {
  // scene colours are sRGB bytes; three.js lights and blends in linear space
  return new THREE.Color().setRGB(rgb[0] / 255, rgb[1] / 255, rgb[2] / 255, THREE.SRGBColorSpace);
}

function corners(lo, hi) {
  const out = [];
  for (let i = 0; i < 8; i++) {
    out.push([i & 1 ? hi[0] : lo[0], i & 2 ? hi[1] : lo[1], i & 4 ? hi[2] : lo[2]]);
  }
  return out;
}

// Boxes as one mesh of coloured faces; `owner[t]` is the item index of triangle t (for picking).
function boxesMesh(boxes, material) {
  const pos = [], col = [], owner = [];
  boxes.forEach((b, index) => {
    const c = corners(b.lo, b.hi);
    QUADS.forEach((q, f) => {
      const colour = linear(b.faces[f]);
      for (const k of [q[0], q[1], q[2], q[0], q[2], q[3]]) {
        pos.push(...c[k]);
        col.push(colour.r, colour.g, colour.b);
      }
      owner.push(index, index);
    });
  });
  const geo = new THREE.BufferGeometry();
  geo.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
  geo.setAttribute('color', new THREE.Float32BufferAttribute(col, 3));
  geo.computeVertexNormals();
  const mesh = new THREE.Mesh(geo, material);
  mesh.userData.owner = owner;
  return mesh;
}

function outlines(boxes, rgb, opacity = 1) {
  const pos = [];
  for (const b of boxes) {
    const c = corners(b.lo, b.hi);
    for (const [a, z] of EDGES) pos.push(...c[a], ...c[z]);
  }
  const geo = new THREE.BufferGeometry();
  geo.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
  return new THREE.LineSegments(geo, new THREE.LineBasicMaterial({
    color: linear(rgb), transparent: opacity < 1, opacity }));
}

// Physics overlay arrows (viewer/layers.py's arrows_mesh): a round shaft and a cone head of HEAD_LENGTH x HEAD_WIDTH
// shaft radii (at most 45 % of the arrow), from `tail` to `head`, in the arrow's colour.
const HEAD_LENGTH = 3.5, HEAD_WIDTH = 1.9, ARROW_SIDES = 14;
const Y_AXIS = new THREE.Vector3(0, 1, 0);

function arrowsGroup(arrows, rgb) {
  const group = new THREE.Group();
  for (const a of arrows) {
    const tail = new THREE.Vector3(...a.tail), d = new THREE.Vector3(...a.head).sub(tail);
    const length = d.length();
    if (length <= 1e-9) continue;
    const r = a.radius, h = Math.min(HEAD_LENGTH * r, 0.45 * length);
    const material = new THREE.MeshLambertMaterial({ color: linear(rgb(a.colour)) });
    const shaft = new THREE.Mesh(new THREE.CylinderGeometry(r, r, length - h, ARROW_SIDES)
      .translate(0, (length - h) / 2, 0), material);
    const head = new THREE.Mesh(new THREE.ConeGeometry(HEAD_WIDTH * r, h, ARROW_SIDES)
      .translate(0, length - h / 2, 0), material);
    const arrow = new THREE.Group();
    arrow.add(shaft, head);
    arrow.position.copy(tail);
    arrow.quaternion.setFromUnitVectors(Y_AXIS, d.normalize());
    group.add(arrow);
  }
  return group;
}

function quad(x0, y0, x1, y1, z, rgb, material) {
  const geo = new THREE.PlaneGeometry(x1 - x0, y1 - y0);
  const m = new THREE.Mesh(geo, material || new THREE.MeshBasicMaterial({ color: linear(rgb) }));
  m.position.set((x0 + x1) / 2, (y0 + y1) / 2, z);
  return m;
}

// shared shapes of the pieces (viewer/layers.py and viewer/renderer.py's templates): a pawn, a stone, the rails and rungs of a ladder
const SHAPES = {
  body: new THREE.CylinderGeometry(0.28, 0.28, 0.72, 20).rotateX(Math.PI / 2).translate(0, 0, 0.36),
  collar: new THREE.CylinderGeometry(0.18, 0.18, 0.1, 20).rotateX(Math.PI / 2).translate(0, 0, 0.76),
  head: new THREE.SphereGeometry(0.22, 16, 12).translate(0, 0, 1.0),
  foot: new THREE.CylinderGeometry(0.32, 0.32, 0.04, 20).rotateX(Math.PI / 2).translate(0, 0, 0.02),
  stoneBase: new THREE.CylinderGeometry(0.62, 0.62, 0.08, 24).rotateX(Math.PI / 2).translate(0, 0, 0.04),
  stoneTop: new THREE.CylinderGeometry(0.5, 0.5, 0.24, 24).rotateX(Math.PI / 2).translate(0, 0, 0.2),
};

function lit(rgb, extra = {}) {
  return new THREE.MeshLambertMaterial({ color: linear(rgb), ...extra });
}

function figureGroup(f, palette, ring, opacity = 1) {
  const g = new THREE.Group();
  const extra = opacity < 1 ? { transparent: true, opacity } : {};
  const body = lit(palette[f.colour] || [245, 245, 240], extra);
  for (const s of ['body', 'collar', 'head']) g.add(new THREE.Mesh(SHAPES[s], body));
  g.add(new THREE.Mesh(SHAPES.foot, lit(ring, extra)));
  g.scale.setScalar(f.scale || 1);
  g.position.set(f.cell[0] + 0.5, f.cell[1] + 0.5, f.cell[2]);
  return g;
}

function ladderGroup(lad, palette) {
  const g = new THREE.Group();
  const rail = lit(palette[lad.colour] || [200, 200, 200]);
  const wood = lit(LADDER_WOOD);
  for (const x of [-0.5, 0.5]) {
    const r = new THREE.Mesh(new THREE.BoxGeometry(0.1, 0.12, lad.height), rail);
    r.position.set(x, 0, lad.height / 2);
    g.add(r);
  }
  for (let k = 0; k < lad.height * 2; k++) {
    const rung = new THREE.Mesh(new THREE.CylinderGeometry(0.04, 0.04, 1.0, 8).rotateZ(Math.PI / 2), wood);
    rung.position.set(0, 0, 0.25 + 0.5 * k);
    g.add(rung);
  }
  g.position.set(...lad.base);
  return g;
}

// Camera position and focal point looking along -dir that bring `points` as close as possible while all of them
// project inside `rect` = [x0, x1, y0, y1] in normalised window coordinates (-1..1): viewer.camera.fit_view, the
// same closed form (linear constraints in the camera's distance and sideways shift, per axis).
function fitView(points, dir, up, fovDeg, aspect, rect) {
  const d = new THREE.Vector3(...dir).normalize();
  const right = new THREE.Vector3().crossVectors(d.clone().negate(), new THREE.Vector3(...up)).normalize();
  const trueUp = new THREE.Vector3().crossVectors(right, d.clone().negate());
  const lo = points.reduce((a, p) => a.min(p), points[0].clone());
  const hi = points.reduce((a, p) => a.max(p), points[0].clone());
  const centre = lo.add(hi).multiplyScalar(0.5);
  const v = points.map((p) => p.clone().sub(centre));
  const w = v.map((p) => p.dot(d));
  const tanV = Math.tan(THREE.MathUtils.degToRad(fovDeg) / 2);
  const [x0, x1, y0, y1] = rect;
  const axes = [[right, x0 * tanV * aspect, x1 * tanV * aspect], [trueUp, y0 * tanV, y1 * tanV]];
  const dist = [Math.max(...w) + 1];
  const shifts = axes.map(([axis, a, b]) => {
    const coord = v.map((p) => p.dot(axis));
    const upper = coord.map((c, i) => c + b * w[i]);
    const lower = coord.map((c, i) => c + a * w[i]);
    dist.push((Math.max(...upper) - Math.min(...lower)) / (b - a));
    return [upper, lower, a, b];
  });
  const D = Math.max(...dist);
  const focal = centre.clone();
  shifts.forEach(([upper, lower, a, b], k) => {
    const t = (Math.max(...upper.map((u) => u - b * D)) + Math.min(...lower.map((l) => l - a * D))) / 2;
    focal.addScaledVector(axes[k][0], t);
  });
  return { position: focal.clone().addScaledVector(d, D), focal };
}

function sceneBounds(s) {
  const boxes = [];
  for (const b of s.blocks) boxes.push([b.origin, b.origin.map((v, i) => v + b.size[i])]);
  for (const g of s.ghosts) boxes.push([g.origin, g.origin.map((v, i) => v + g.size[i])]);
  for (const f of [...s.figures, ...s.ghost_figures]) {
    boxes.push([f.cell, [f.cell[0] + 1, f.cell[1] + 1, f.cell[2] + 1.3 * (f.scale || 1)]]);
  }
  for (const l of s.ladders) boxes.push([[l.base[0] - 0.6, l.base[1] - 0.1, l.base[2]],
    [l.base[0] + 0.6, l.base[1] + 0.1, l.base[2] + l.height]]);
  if (!boxes.length) return [[0, 0, 0], [1, 1, 1]];
  const lo = [0, 1, 2].map((i) => Math.min(...boxes.map((b) => b[0][i])));
  const hi = [0, 1, 2].map((i) => Math.max(...boxes.map((b) => b[1][i])));
  return [lo, hi];
}

function figureKeys(figures) {
  const seen = {};
  return figures.map((f) => { seen[f.colour] = (seen[f.colour] || 0) + 1; return `${f.colour}#${seen[f.colour]}`; });
}

// A software renderer (SwiftShader, llvmpipe: a machine without a GPU) pays for multisampling on every frame;
// the dark outlines keep the edges readable without it, as on the desktop viewer.
function softwareRenderer() {
  const gl = document.createElement('canvas').getContext('webgl2');
  if (!gl) return true;
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  const name = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
  const lose = gl.getExtension('WEBGL_lose_context');
  if (lose) lose.loseContext();
  return /swiftshader|llvmpipe|software/i.test(name);
}

export class SceneView {
  // `covered()`: pixels at the top of the view hidden by text laid over it (the camera keeps the scene below)
  constructor(container, { covered = () => 0 } = {}) {
    this.container = container;
    this.covered = covered;
    this.software = softwareRenderer();
    this.renderer = new THREE.WebGLRenderer({ antialias: !this.software, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    container.appendChild(this.renderer.domElement);
    this.labelLayer = document.createElement('div');
    this.labelLayer.className = 'labels';
    container.appendChild(this.labelLayer);
    this.three = new THREE.Scene();
    this.camera = new THREE.PerspectiveCamera(FOV, 1, 0.1, 4000);
    this.camera.up.set(0, 0, 1);
    // lights fixed to the camera, as the desktop's camera lights: every view is lit alike
    this.three.add(this.camera);
    this.three.add(new THREE.AmbientLight(0xffffff, 0.5 * Math.PI));
    for (const [pos, k] of [[[-1.0, 1.8, 2.2], 0.7], [[1.8, 0.0, 1.6], 0.45], [[0.0, -0.5, 1.0], 0.15]]) {
      const light = new THREE.DirectionalLight(0xffffff, k * Math.PI);
      light.position.set(...pos);
      this.camera.add(light);
      this.camera.add(light.target);   // the target sits at the camera: the light shines along -pos
      light.target.position.set(0, 0, 0);
    }
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.enableDamping = false;
    this.controls.addEventListener('change', () => this.render());
    this.root = new THREE.Group();
    this.three.add(this.root);
    this.scene = null;
    this.pickables = [];
    this._aimGroup = null;
    this.labels = [];
    this.moving = [];
    this.anim = null;
    this.onPick = null;
    this.onHover = null;     // (clientX, clientY) while the pointer moves over the view without a button down
    this.onWheel = null;     // (deltaY) -> true when the page used the wheel (the camera then does not zoom)
    this.aimGhost = null;    // one placement drawn solid where the pointer aims (setAim)
    this.surfaces = [];      // what the pointer can aim at: the blocks and the table
    this._down = null;
    const canvas = this.renderer.domElement;
    canvas.addEventListener('pointermove', (e) => {
      if (!this._down && this.onHover) this.onHover(e.clientX, e.clientY);
    });
    // the capture phase on the container runs before the camera's own wheel handler on the canvas
    container.addEventListener('wheel', (e) => {
      if (this.onWheel && this.onWheel(e.deltaY)) {
        e.preventDefault();
        e.stopPropagation();
      }
    }, { capture: true, passive: false });
    canvas.addEventListener('pointerdown', (e) => { this._down = [e.clientX, e.clientY]; });
    canvas.addEventListener('pointerup', (e) => {
      // a click, not the end of an orbit drag
      if (this._down && Math.hypot(e.clientX - this._down[0], e.clientY - this._down[1]) < 5 && this.onPick) {
        this.onPick(this.pickAt(e.clientX, e.clientY), e);
      }
      this._down = null;
    });
    new ResizeObserver(() => this.resize()).observe(container);
    this.resize();
  }

  resize() {
    const w = Math.max(this.container.clientWidth, 1), h = Math.max(this.container.clientHeight, 1);
    this.renderer.setSize(w, h, false);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.render();
  }

  // Show a scene; `from` (the scene shown before a move) animates the pieces that moved.
  show(scene, { from = null, resetCamera = false } = {}) {
    const first = this.scene === null;
    this.scene = scene;
    const bg = scene.fixed.background;
    this.renderer.setClearColor(linear(bg));
    this.moving = from ? this._movers(from, scene) : [];
    this._build(scene);
    if (first || resetCamera) this.resetCamera();
    if (this.moving.length) this._animate();
    else this.render();
  }

  palette() {
    return { ...this.scene.palette };
  }

  _movers(a, b) {
    const moved = [];
    const old = new Map(a.blocks.map((x) => [x.id, x]));
    b.blocks.forEach((blk, i) => {
      const o = old.get(blk.id);
      if (o && (o.origin.some((v, k) => v !== blk.origin[k]) || o.size.some((v, k) => v !== blk.size[k]))) {
        moved.push({ kind: 'block', index: i, from: o, to: blk });
      }
    });
    const keys = figureKeys(a.figures);
    const oldFig = new Map(a.figures.map((f, i) => [keys[i], f]));
    figureKeys(b.figures).forEach((k, i) => {
      const o = oldFig.get(k), f = b.figures[i];
      if (o && o.cell.some((v, j) => v !== f.cell[j])) moved.push({ kind: 'figure', index: i, from: o, to: f });
    });
    return moved;
  }

  _build(s) {
    for (const child of [...this.root.children]) {
      this.root.remove(child);
      child.traverse((o) => {
        if (o.geometry && !Object.values(SHAPES).includes(o.geometry)) o.geometry.dispose();
        if (o.material) o.material.dispose();
      });
    }
    this.pickables = [];
    this._aimGroup = null;
    const pal = { ...s.palette };
    const rgb = (name) => pal[name] || [255, 0, 255];
    const movingBlocks = new Set(this.moving.filter((m) => m.kind === 'block').map((m) => m.index));
    const movingFigs = new Set(this.moving.filter((m) => m.kind === 'figure').map((m) => m.index));
    // table and the soft contact shadow, unlit: exactly the table colour
    const t = s.table;
    const table = quad(t[0], t[2], t[1], t[3], -0.01, s.fixed.table);
    table.userData.layer = 'table';
    this.root.add(table);
    this.surfaces = [table];
    if (s.shadow) this._shadow(s);
    // blocks, their outlines, and the outline layers
    const box = (b) => ({ lo: b.origin.map((v) => v + GAP), hi: b.origin.map((v, i) => v + b.size[i] - GAP),
      faces: b.faces.map((c) => rgb(b.tint || c)) });  // an overlay's tint (removal map) paints all six
    const still = s.blocks.map((b, i) => [b, i]).filter(([, i]) => !movingBlocks.has(i));
    if (still.length) {
      // blocks go translucent under the force overlay (scene.block_opacity), so arrows inside show through
      const opacity = s.block_opacity === undefined ? 1 : s.block_opacity;
      const mesh = boxesMesh(still.map(([b]) => box(b)),
        new THREE.MeshLambertMaterial({ vertexColors: true, polygonOffset: true, polygonOffsetFactor: 1,
          polygonOffsetUnits: 1, transparent: opacity < 1, opacity, depthWrite: opacity >= 1 }));
      mesh.userData.owner = mesh.userData.owner.map((k) => still[k][1]);
      mesh.userData.layer = 'blocks';
      this.root.add(mesh);
      this.pickables.push(mesh);
      this.surfaces.push(mesh);
      this.root.add(outlines(still.map(([b]) => box(b)), EDGE));
    }
    for (const m of this.moving.filter((x) => x.kind === 'block')) {
      const mesh = boxesMesh([box(m.to)], new THREE.MeshLambertMaterial({ vertexColors: true }));
      mesh.add(outlines([box(m.to)], EDGE));
      m.object = mesh;
      this.root.add(mesh);
    }
    const grow = (b, d) => ({ lo: b.origin.map((v) => v - d), hi: b.origin.map((v, i) => v + b.size[i] + d) });
    const sel = s.blocks.filter((b) => b.selected);
    const mov = s.blocks.filter((b) => b.movable && !b.selected);
    const bad = s.blocks.filter((b) => b.problems.length);
    if (sel.length) this.root.add(outlines(sel.map((b) => grow(b, 0.03)), s.fixed.select));
    // three shells a little apart: WebGL draws every line one pixel wide, and one orange line is lost beside a
    // yellow or red face (the desktop viewer draws these outlines 2 pixels wide)
    if (mov.length) this.root.add(outlines(mov.flatMap((b) => [-0.015, 0.005, 0.025].map((d) => grow(b, d))), MOVABLE));
    const probCells = s.markers.filter((m) => m.kind === 'problem')
      .map((m) => ({ lo: m.cell.map((v) => v + 0.12), hi: m.cell.map((v) => v + 0.88) }));
    if (bad.length || probCells.length) {
      this.root.add(outlines([...bad.map((b) => grow(b, 0.02)), ...probCells], s.fixed.problem));
    }
    const hov = s.blocks.filter((b) => b.id === s.hover);
    if (hov.length) this.root.add(outlines(hov.map((b) => grow(b, 0.03)), HOVER));
    // target cells a figure may step to (pickable)
    const targets = s.markers.map((m, i) => [m, i]).filter(([m]) => m.kind === 'target');
    if (targets.length) {
      const mat = new THREE.MeshBasicMaterial({ color: linear(TARGET), side: THREE.DoubleSide });
      const group = new THREE.Group();
      for (const [m, i] of targets) {
        const q = quad(m.cell[0] + 0.15, m.cell[1] + 0.15, m.cell[0] + 0.85, m.cell[1] + 0.85, m.cell[2] + 0.02,
          null, mat);
        q.userData = { layer: 'targets', index: i };
        group.add(q);
        this.pickables.push(q);
      }
      this.root.add(group);
    }
    // figures (the foot ring: gold for the player to move, signal red for a problem)
    s.figures.forEach((f, i) => {
      const ring = f.problem ? s.fixed.problem : f.current ? CURRENT : EDGE;
      const g = figureGroup(f, pal, ring);
      g.userData = { layer: 'figures', index: i };
      g.traverse((o) => { o.userData = { layer: 'figures', index: i }; });
      if (movingFigs.has(i)) this.moving.find((m) => m.kind === 'figure' && m.index === i).object = g;
      this.root.add(g);
      this.pickables.push(g);
    });
    s.ghost_figures.forEach((f, i) => {
      const g = figureGroup(f, pal, s.fixed.select, 0.75);
      g.traverse((o) => { o.userData = { layer: 'ghost_figs', index: i }; });
      this.root.add(g);
      this.pickables.push(g);
    });
    for (const st of s.stones) {
      const g = new THREE.Group();
      g.add(new THREE.Mesh(SHAPES.stoneBase, lit(EDGE)));
      g.add(new THREE.Mesh(SHAPES.stoneTop, lit(rgb(st.colour))));
      g.position.set(st.centre[0], st.centre[1], st.centre[2] + 0.01);
      this.root.add(g);
    }
    for (const lad of s.ladders) this.root.add(ladderGroup(lad, pal));
    // ghosts: placements offered by the game, faint; the chosen one solid with white edges
    for (const chosen of [false, true]) {
      const gs = s.ghosts.map((g, i) => [g, i]).filter(([g]) => !!g.selected === chosen);
      if (!gs.length) continue;
      const mat = chosen
        ? new THREE.MeshLambertMaterial({ vertexColors: true })
        : new THREE.MeshLambertMaterial({ vertexColors: true, transparent: true, opacity: 0.18, depthWrite: false });
      const mesh = boxesMesh(gs.map(([g]) => box(g)), mat);
      mesh.userData.owner = mesh.userData.owner.map((k) => gs[k][1]);
      mesh.userData.layer = chosen ? 'ghost_sel' : 'ghosts';
      mesh.renderOrder = chosen ? 0 : 2;
      this.root.add(mesh);
      this.pickables.push(mesh);
      this.root.add(outlines(gs.map(([g]) => grow(g, chosen ? 0.02 : -GAP)), [255, 255, 255], chosen ? 1 : 0.5));
    }
    if (s.arrows && s.arrows.length) this.root.add(arrowsGroup(s.arrows, rgb));
    this._addAim(box, grow);
    this._labels(s.labels);
  }

  _addAim(box, grow) {
    const g = this.aimGhost;
    if (!g) return;
    const group = new THREE.Group();
    const rgb = (name) => this.scene.palette[name] || [128, 128, 128];
    // the block where it would go: its own colours, a little see-through, outlined white and blue, and its
    // footprint marked on the surface it would stand on, so it reads as "here" among the real blocks
    const mesh = boxesMesh([{ ...box(g), faces: g.faces.map(rgb) }],
      new THREE.MeshLambertMaterial({ vertexColors: true, transparent: true, opacity: 0.8 }));
    mesh.renderOrder = 3;
    group.add(mesh);
    group.add(outlines([grow(g, 0.02)], [255, 255, 255]));
    group.add(outlines([grow(g, 0.07)], HOVER));
    const [x, y, z] = g.origin;
    const foot = quad(x, y, x + g.size[0], y + g.size[1], z + 0.03, null,
      new THREE.MeshBasicMaterial({ color: linear(HOVER), transparent: true, opacity: 0.55, side: THREE.DoubleSide,
        depthWrite: false }));
    group.add(foot);
    group.userData.aim = true;
    this.root.add(group);
    this._aimGroup = group;
  }

  // Draw one placement solid where the pointer aims (null: none), without rebuilding the rest of the scene.
  setAim(ghost) {
    this.aimGhost = ghost;
    if (this._aimGroup) {
      this.root.remove(this._aimGroup);
      this._aimGroup.traverse((o) => { if (o.geometry) o.geometry.dispose(); if (o.material) o.material.dispose(); });
      this._aimGroup = null;
    }
    const box = (b) => ({ lo: b.origin.map((v) => v + GAP), hi: b.origin.map((v, i) => v + b.size[i] - GAP),
      faces: b.faces });
    const grow = (b, d) => ({ lo: b.origin.map((v) => v - d), hi: b.origin.map((v, i) => v + b.size[i] + d) });
    if (this.scene) this._addAim(box, grow);
    this.render();
  }

  // Where the pointer meets a block face or the table: {point, normal} in grid units, or null (the sky).
  surfaceAt(clientX, clientY) {
    const rect = this.renderer.domElement.getBoundingClientRect();
    const ndc = new THREE.Vector2(((clientX - rect.left) / rect.width) * 2 - 1,
      -((clientY - rect.top) / rect.height) * 2 + 1);
    const ray = new THREE.Raycaster();
    ray.setFromCamera(ndc, this.camera);
    const hit = ray.intersectObjects(this.surfaces, false)[0];
    if (hit) {
      const n = hit.object.userData.layer === 'table' ? [0, 0, 1] : [hit.face.normal.x, hit.face.normal.y, hit.face.normal.z];
      return { point: [hit.point.x, hit.point.y, Math.max(hit.point.z, 0)], normal: n };
    }
    const p = ray.ray.intersectPlane(new THREE.Plane(new THREE.Vector3(0, 0, 1), 0), new THREE.Vector3());
    return p ? { point: [p.x, p.y, 0], normal: [0, 0, 1] } : null;
  }

  _shadow(s) {
    const ground = s.blocks.filter((b) => b.origin[2] <= 0);
    if (!ground.length) return;
    const lo = [Math.min(...ground.map((b) => b.origin[0])), Math.min(...ground.map((b) => b.origin[1]))];
    const hi = [Math.max(...ground.map((b) => b.origin[0] + b.size[0])),
      Math.max(...ground.map((b) => b.origin[1] + b.size[1]))];
    const rings = 8;
    for (let k = 0; k < rings; k++) {
      const g = 1.3 - (1.3 * k) / (rings - 1);
      const shade = 0.97 - ((0.97 - 0.8) * k) / (rings - 1);
      const c = s.fixed.table.map((v) => Math.round(v * shade));
      // offset towards +x/-y: the key light comes from the back left
      this.root.add(quad(lo[0] - g + 0.4, lo[1] - g - 0.4, hi[0] + g + 0.4, hi[1] + g - 0.4,
        -0.008 + (0.004 * k) / (rings - 1), c));
    }
  }

  _labels(labels) {
    this.labelLayer.replaceChildren();
    this.labels = labels.map((l) => {
      const div = document.createElement('div');
      div.className = 'label';
      div.textContent = l.text;
      this.labelLayer.appendChild(div);
      return { div, pos: new THREE.Vector3(...l.position) };
    });
  }

  _placeLabels() {
    const w = this.container.clientWidth, h = this.container.clientHeight;
    for (const l of this.labels) {
      const p = l.pos.clone().project(this.camera);
      const hidden = p.z > 1 || p.z < -1;
      l.div.hidden = hidden;
      if (!hidden) {
        l.div.style.left = `${((p.x + 1) / 2) * w}px`;
        l.div.style.top = `${((1 - p.y) / 2) * h}px`;
      }
    }
  }

  _animate() {
    const start = performance.now();
    const duration = this.software ? ANIM_MS / 2 : ANIM_MS;  // fewer slow frames
    const step = (now) => {
      const u = Math.min((now - start) / duration, 1);
      const t = u * u * (3 - 2 * u);
      const hop = HOP * 4 * t * (1 - t);
      for (const m of this.moving) {
        if (!m.object) continue;
        if (m.kind === 'block') {
          // the mesh is built at the destination: shift and stretch it back towards the start
          const lo = m.from.origin.map((v, i) => v + (m.to.origin[i] - v) * t);
          const size = m.from.size.map((v, i) => v + (m.to.size[i] - v) * t);
          const sc = size.map((v, i) => v / m.to.size[i]);
          m.object.scale.set(...sc);
          m.object.position.set(lo[0] - m.to.origin[0] * sc[0], lo[1] - m.to.origin[1] * sc[1],
            lo[2] + hop - m.to.origin[2] * sc[2]);
        } else {
          const c = m.from.cell.map((v, i) => v + (m.to.cell[i] - v) * t);
          m.object.position.set(c[0] + 0.5, c[1] + 0.5, c[2] + hop);
        }
      }
      this.render();
      if (u < 1) {
        this.anim = requestAnimationFrame(step);
      } else {
        this.anim = null;
        this.moving = [];
        this._build(this.scene);   // back to one merged mesh per layer
        this.render();
      }
    };
    if (this.anim) cancelAnimationFrame(this.anim);
    this.anim = requestAnimationFrame(step);
  }

  get animating() {
    return this.anim !== null;
  }

  // Camera preset 1 of the desktop: isometric from the front right (a board from higher up), fitted to the scene.
  resetCamera() {
    if (!this.scene) return;
    const [lo, hi] = sceneBounds(this.scene);
    const pts = [];
    for (const x of [lo[0], hi[0]]) for (const y of [lo[1], hi[1]]) for (const z of [lo[2], hi[2]]) {
      pts.push(new THREE.Vector3(x, y, z));
    }
    const dir = this.scene.flat ? [0.3, -1.0, 1.6] : [0.75, -1.0, 0.72];
    const h = Math.max(this.container.clientHeight, 1);
    const top = Math.max(0, Math.min(0.94, 1 - (2 * (this.covered() + 12)) / h));
    const { position, focal } = fitView(pts, dir, [0, 0, 1], FOV, this.camera.aspect, [-0.95, 0.95, -0.95, top]);
    this.camera.position.copy(position);
    this.controls.target.copy(focal);
    this.camera.lookAt(focal);
    this.camera.far = Math.max(4000, position.distanceTo(focal) * 10);
    this.camera.updateProjectionMatrix();
    this.controls.update();
    this.render();
  }

  render() {
    this._placeLabels();
    this.renderer.render(this.three, this.camera);
  }

  // What is drawn at a point of the page: {layer, index} into the scene's list of that layer, or null.
  pickAt(clientX, clientY) {
    const rect = this.renderer.domElement.getBoundingClientRect();
    const ndc = new THREE.Vector2(((clientX - rect.left) / rect.width) * 2 - 1,
      -((clientY - rect.top) / rect.height) * 2 + 1);
    const ray = new THREE.Raycaster();
    ray.setFromCamera(ndc, this.camera);
    const hits = ray.intersectObjects(this.pickables, true);
    const order = ['targets', 'ghost_sel', 'ghosts', 'ghost_figs', 'figures', 'blocks'];
    let best = null;
    for (const h of hits) {
      let o = h.object, layer = o.userData.layer;
      while (!layer && o.parent) { o = o.parent; layer = o.userData.layer; }
      if (!layer) continue;
      const index = o.userData.owner ? o.userData.owner[h.faceIndex] : o.userData.index;
      const item = { layer, index, distance: h.distance };
      // the nearest hit wins; at the same depth (within a hair) the layer first in `order`
      if (!best || item.distance < best.distance - 1e-3 ||
          (Math.abs(item.distance - best.distance) <= 1e-3 && order.indexOf(layer) < order.indexOf(best.layer))) {
        best = item;
      }
    }
    return best && { layer: best.layer, index: best.index };
  }

  // Page coordinates of a point of the scene (grid units): for tests and for placing things over the canvas.
  project(point) {
    const rect = this.renderer.domElement.getBoundingClientRect();
    const p = new THREE.Vector3(...point).project(this.camera);
    return [rect.left + ((p.x + 1) / 2) * rect.width, rect.top + ((1 - p.y) / 2) * rect.height];
  }
}
