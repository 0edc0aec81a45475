// The lab page's own drawing with three.js, beside the scene the server sends (scene3d.js draws that): the meshes
// of the ghost, the grid of columns over the table, and "Drop it": the server's PyBullet trajectory played back,
// interpolated between its frames.
import * as THREE from 'three';

export const GAP = 0.04;               // blocks shrink by this much per side, as in the scene
const MOVED_RGB = 0xff6a00;            // outline of the blocks a drop moved
const REFUSED = [255, 0, 60];          // a refused place (viewer.scene.PROBLEM_RGB, the problems' signal colour)
// the face colours' RGB before any scene names them (the same values as viewer.scene.PALETTE)
const KNOWN = { red: [206, 48, 42], yellow: [246, 200, 36], 'dark-blue': [28, 58, 150],
  'light-blue': [120, 196, 240], purple: [128, 62, 170], grey: [150, 150, 150] };

export function srgb(rgb) {
  return new THREE.Color().setRGB(rgb[0] / 255, rgb[1] / 255, rgb[2] / 255, THREE.SRGBColorSpace);
}

// a colour name's RGB: the scene's palette first, then the face colours' own
function colourOf(name, palette) {
  return (palette && palette[name]) || KNOWN[name] || [200, 200, 200];
}

// A box of six face colours (FACES order: +x -x +y -y +z -z, which is also three.js's BoxGeometry group order).
export function boxMesh(size, faces, palette, opacity = 1) {
  const geo = new THREE.BoxGeometry(...size.map((v) => v - 2 * GAP));
  const mats = faces.map((f) => new THREE.MeshLambertMaterial({ color: srgb(colourOf(f, palette)),
    transparent: opacity < 1, opacity, depthWrite: opacity >= 1 }));
  const mesh = new THREE.Mesh(geo, mats);
  mesh.add(new THREE.LineSegments(new THREE.EdgesGeometry(geo), new THREE.LineBasicMaterial({ color: 0x26262c })));
  return mesh;
}

// the ghost of a refused place: the refusal colour (viewer.scene.PROBLEM_RGB), see-through, with its edges
export function refusedMesh(size) {
  const geo = new THREE.BoxGeometry(...size.map((v) => v - 2 * GAP));
  const mesh = new THREE.Mesh(geo, new THREE.MeshLambertMaterial({ color: srgb(REFUSED), transparent: true,
    opacity: 0.45, depthWrite: false }));
  mesh.add(new THREE.LineSegments(new THREE.EdgesGeometry(geo), new THREE.LineBasicMaterial({ color: srgb(REFUSED) })));
  return mesh;
}

// the blocks' bounds, and at least a 10 x 10 x 6 area of the table round the middle (an empty table is no
// unit box to zoom into): what the camera is fitted to
export function workArea(scene) {
  let lo = [-4, -4, 0], hi = [6, 6, 6];
  for (const b of scene.blocks) {
    lo = lo.map((v, i) => Math.min(v, b.origin[i] - 1));
    hi = hi.map((v, i) => Math.max(v, b.origin[i] + b.size[i] + 1));
  }
  return [lo, hi];
}

export function clear(group) {
  for (const child of [...group.children]) {
    group.remove(child);
    child.traverse((o) => {
      if (o.geometry) o.geometry.dispose();
      const mats = Array.isArray(o.material) ? o.material : o.material ? [o.material] : [];
      mats.forEach((m) => m.dispose());
    });
  }
}

// A grid of the 1-unit (2 cm) columns over the table: where a click puts a block reads at once, also on an empty
// table (every second line a little darker: a block is 2 units wide). Drawn again only when the table changes.
export class Grid {
  constructor(three) {
    this.three = three;
    this.group = null;
  }

  draw(table) {
    const key = table.join(',');
    if (this.group && this.group.userData.key === key) return;
    if (this.group) {
      this.three.remove(this.group);
      clear(this.group);
    }
    const [x0, x1, y0, y1] = table;
    const grid = new THREE.Group();
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
    this.group = grid;
    this.three.add(grid);
  }
}

const qa = new THREE.Quaternion(), qb = new THREE.Quaternion();

// The drop's animation: the trajectory is the scene's (tower-scene/1 `frames`, grid units); its blocks are drawn
// one mesh each in `group`, so every frame only moves them, while the view's own scene is hidden. `onDone(moved)`
// once the last frame is shown (the blocks that moved are outlined).
export class DropPlayer {
  constructor(view, group, onDone = () => {}) {
    this.view = view;
    this.group = group;
    this.onDone = onDone;
    this.d = null;           // {frames, moved, meshes, start, shown, done} while a drop is shown
  }

  get active() {
    return this.d !== null;
  }

  play(scene) {
    clear(this.group);
    const t = scene.table;   // the table stays: the blocks fall onto it
    const table = new THREE.Mesh(new THREE.PlaneGeometry(t[1] - t[0], t[3] - t[2]),
      new THREE.MeshBasicMaterial({ color: srgb(scene.fixed.table) }));
    table.position.set((t[0] + t[1]) / 2, (t[2] + t[3]) / 2, -0.01);
    this.group.add(table);
    const meshes = new Map();
    for (const b of scene.blocks) {
      const mesh = boxMesh(b.size, b.faces, scene.palette);
      this.group.add(mesh);
      meshes.set(b.id, mesh);
    }
    this.view.root.visible = false;
    this.d = { frames: scene.frames, moved: scene.moved, meshes, start: performance.now(), shown: 0, done: false };
    document.body.dataset.dropping = 'true';
    requestAnimationFrame((now) => this._step(now));
  }

  _step(now) {
    const d = this.d;
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
    this.view.render();
    if (t < frames[frames.length - 1].t) {
      requestAnimationFrame((next) => this._step(next));
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
    this.onDone(d.moved);
    this.view.render();
  }

  stop() {
    if (!this.d) return;
    this.d = null;
    clear(this.group);
    this.view.root.visible = true;
    document.body.dataset.dropping = 'false';
    this.view.render();
  }
}
