// Aimed block placement in the browser: the twin of viewer/placement.py (the same grouping, spot, options, cycling
// and "why not here"), fed once per chosen block with `BlockPlacements.to_json()` from
// GET /api/games/{id}/placements. Pointing only looks things up here: no request per mouse move.
//
//   const ps = new BlockPlacements(json);
//   const aim = new Aim(ps);
//   aim.point(hit, normal)   // where the pointer meets a block face or the table, and that face's normal
//   aim.current              // {origin, shape, text, words} shown as the ghost and played by a click, or null
//   aim.cycle(+1 | -1)       // the next/previous shape or face up at this spot (sticks while the pointer moves)
//   aim.whyNot()             // nothing legal here: the rule in words
//   aim.status()             // one line for the screen
//   ps.ghost(placement)      // {block, origin, size, faces} to draw

const key = (x, y) => `${x},${y}`;

export class BlockPlacements {
  constructor(doc) {
    this.block = doc.block;
    this.board = doc.board;
    this.shapes = doc.shapes;
    this.placements = doc.placements.map(([x, y, z, shape, text, words]) => ({ origin: [x, y, z], shape, text, words }));
    this.heights = new Map(doc.heights.map(([x, y, h]) => [key(x, y), h]));
    this.probe = doc.probe;
    this.why = new Map();
    for (const w of doc.why) for (const [x, y] of w.columns) this.why.set(key(x, y), w.text);
    this.far = doc.far;
    this.byColumn = new Map();
    this.placements.forEach((p, i) => {
      const [sx, sy] = this.shapes[p.shape].size;
      for (let cx = p.origin[0]; cx < p.origin[0] + sx; cx++) {
        for (let cy = p.origin[1]; cy < p.origin[1] + sy; cy++) {
          const k = key(cx, cy);
          if (!this.byColumn.has(k)) this.byColumn.set(k, []);
          this.byColumn.get(k).push(i);
        }
      }
    });
  }

  height(x, y) {
    return this.heights.get(key(x, y)) || 0;
  }

  spot(hit, normal) {
    const x = Math.floor(hit[0] + 0.5 * normal[0]);
    const y = Math.floor(hit[1] + 0.5 * normal[1]);
    if (!(x >= 0 && x < this.board && y >= 0 && y < this.board)) return null;
    return { x, y, z: this.height(x, y), px: hit[0], py: hit[1] };
  }

  atColumn(x, y) {
    const rows = this.byColumn.get(key(x, y)) || [];
    const z = this.height(x, y);
    const level = rows.filter((i) => this.placements[i].origin[2] === z);
    if (level.length || !rows.length) return level;
    const above = rows.map((i) => this.placements[i].origin[2]).filter((h) => h > z);
    if (!above.length) return [];
    const lowest = Math.min(...above);
    return rows.filter((i) => this.placements[i].origin[2] === lowest);
  }

  options(spot) {
    const best = new Map();
    const rows = this.atColumn(spot.x, spot.y);
    const less = (a, b) => a[0] < b[0] || (a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && (a[2] < b[2] ||
      (a[2] === b[2] && a[3] < b[3])))));
    for (const i of rows) {
      const p = this.placements[i];
      const [sx, sy] = this.shapes[p.shape].size;
      const d = (p.origin[0] + sx / 2 - spot.px) ** 2 + (p.origin[1] + sy / 2 - spot.py) ** 2;
      const k = [d, ...p.origin];
      if (!best.has(p.shape) || less(k, best.get(p.shape))) best.set(p.shape, k);
    }
    return [...rows].sort((a, b) => (this.placements[a].shape - this.placements[b].shape) || a - b)
      .filter((i) => {
        const p = this.placements[i], k = best.get(p.shape);
        return p.origin[0] === k[1] && p.origin[1] === k[2] && p.origin[2] === k[3];
      });
  }

  whyNot(spot) {
    if (!spot) return 'off the table area';
    return this.why.get(key(spot.x, spot.y)) || this.far;
  }

  ghost(p) {
    const s = this.shapes[p.shape];
    return { block: this.block, origin: p.origin, size: s.size, faces: s.faces, selected: true, label: p.text,
      problems: [] };
  }
}

export class Aim {
  constructor(ps) {
    this.ps = ps;
    this.spot = null;
    this.options = [];
    this.index = 0;
    this.shape = null;
  }

  point(hit, normal = [0, 0, 1]) {
    this.spot = hit ? this.ps.spot(hit, normal) : null;
    this.options = this.spot ? this.ps.options(this.spot) : [];
    this.index = 0;
    if (this.shape !== null) {
      const k = this.options.findIndex((i) => this.ps.placements[i].shape === this.shape);
      if (k >= 0) this.index = k;
    }
    return this.spot;
  }

  get current() {
    return this.options.length ? this.ps.placements[this.options[this.index]] : null;
  }

  cycle(step = 1) {
    if (this.options.length) {
      const n = this.options.length;
      this.index = (((this.index + step) % n) + n) % n;
      this.shape = this.ps.placements[this.options[this.index]].shape;
    }
    return this.current;
  }

  // put the pointer's choice on a given placement (from the list): its spot and shape
  choose(text) {
    const p = this.ps.placements.find((q) => q.text === text);
    if (!p) return null;
    const [sx, sy] = this.ps.shapes[p.shape].size;
    this.shape = p.shape;
    this.point([p.origin[0] + sx / 2, p.origin[1] + sy / 2, p.origin[2]]);
    const k = this.options.findIndex((i) => this.ps.placements[i] === p);
    if (k >= 0) this.index = k;
    return this.current;
  }

  whyNot() {
    return this.options.length ? null : this.ps.whyNot(this.spot);
  }

  status() {
    const cur = this.current;
    if (!cur) {
      if (!this.spot) return `${this.ps.block}: point at the tower or the table where it should go`;
      return `not at (${this.spot.x},${this.spot.y}): ${this.whyNot()}`;
    }
    const more = this.options.length > 1
      ? ` (${this.index + 1} of ${this.options.length} here: wheel or R turns it)` : '';
    return `click to ${cur.words || cur.text}${more}`;
  }
}
