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
//   ps.touches(placement)    // the lab: its footprint covers a block's column or a figure's
//   ps.refusal(placement, refused, elsewhere)  // the lab's refusals answer for one placement

const key = (x, y) => `${x},${y}`;

export class BlockPlacements {
  constructor(doc) {
    this.block = doc.block;
    this.board = doc.board;
    this.lo = doc.lo || 0;   // the table area's first column on both axes (the lab's table reaches below 0)
    this.free = !!doc.free;  // free placement (the lab, `resting`): see freeRows
    this.shapes = doc.shapes;
    this.placements = doc.placements.map(([x, y, z, shape, text, words]) => ({ origin: [x, y, z], shape, text, words }));
    this.heights = new Map(doc.heights.map(([x, y, h]) => [key(x, y), h]));
    this.probe = doc.probe;
    this.why = new Map();
    for (const w of doc.why) for (const [x, y] of w.columns) this.why.set(key(x, y), w.text);
    this.far = doc.far;
    this.figures = new Set((doc.figures || []).map(([x, y]) => key(x, y)));   // the figures' columns (the lab)
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

  // Free placement (the lab), as BlockPlacements.resting in viewer/placement.py: each shape ({size, top, faces})
  // at every corner of `area` ([x0, y0, x1, y1]: the columns it may cover, half-open), resting on the highest
  // column under its footprint (`heights`: [[x, y, h], ...], the block being moved left out); `figures`: the
  // figures' columns [[x, y], ...].
  static resting(block, shapes, heights, area, lo = 0, board = 32, figures = []) {
    const h = new Map(heights.map(([x, y, v]) => [key(x, y), v]));
    const [x0, y0, x1, y1] = area;
    const placements = [];
    shapes.forEach((s, k) => {
      const [sx, sy] = s.size;
      for (let x = x0; x <= x1 - sx; x++) {
        for (let y = y0; y <= y1 - sy; y++) {
          let z = 0;
          for (let cx = x; cx < x + sx; cx++) for (let cy = y; cy < y + sy; cy++) z = Math.max(z, h.get(key(cx, cy)) || 0);
          placements.push([x, y, z, k, `block ${block} ${x},${y},${z} ${s.size.join('x')} ${s.top}`, '']);
        }
      }
    });
    return new BlockPlacements({ block, board, lo, free: true, shapes, placements, heights, probe: 0, why: [],
      far: '', figures });
  }

  height(x, y) {
    return this.heights.get(key(x, y)) || 0;
  }

  // Whether the placement's footprint covers a column with a block (the block in hand left out) or a figure's
  // column: `touches` in viewer/placement.py. One that touches nothing stands on the bare table, judged alike
  // anywhere, so the lab's refusals say it once per shape (`elsewhere`).
  touches(p) {
    const [sx, sy] = this.shapes[p.shape].size;
    for (let cx = p.origin[0]; cx < p.origin[0] + sx; cx++) {
      for (let cy = p.origin[1]; cy < p.origin[1] + sy; cy++) {
        if (this.heights.has(key(cx, cy)) || this.figures.has(key(cx, cy))) return true;
      }
    }
    return false;
  }

  // The lab's refusals answer (POST /api/lab/ID/refusals) for one placement: "rule: words", or null where the
  // rules let it go (`BlockPlacements.refusal` in viewer/placement.py).
  refusal(p, refused, elsewhere) {
    if (Object.hasOwn(refused, p.text)) return refused[p.text];
    return this.touches(p) ? null : (elsewhere[p.shape] ?? null);
  }

  spot(hit, normal) {
    const x = Math.floor(hit[0] + 0.5 * normal[0]);
    const y = Math.floor(hit[1] + 0.5 * normal[1]);
    const lo = this.lo, hi = this.lo + this.board;
    if (!(x >= lo && x < hi && y >= lo && y < hi)) return null;
    return { x, y, z: this.height(x, y), px: hit[0], py: hit[1],
      nx: Math.round(normal[0]), ny: Math.round(normal[1]) };
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

  // Free placement: every placement covering the column (each rests on the highest column under it, so the one
  // nearest the pointer is where the block goes); against a side face only those in front of the face.
  freeRows(spot) {
    return (this.byColumn.get(key(spot.x, spot.y)) || []).filter((i) => {
      const [ox, oy] = this.placements[i].origin, [sx, sy] = this.shapes[this.placements[i].shape].size;
      return !((spot.nx > 0 && ox < spot.x) || (spot.nx < 0 && ox + sx > spot.x + 1)
        || (spot.ny > 0 && oy < spot.y) || (spot.ny < 0 && oy + sy > spot.y + 1));
    });
  }

  options(spot) {
    const best = new Map();
    const rows = this.free ? this.freeRows(spot) : this.atColumn(spot.x, spot.y);
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
