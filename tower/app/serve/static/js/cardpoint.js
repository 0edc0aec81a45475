// Card games played by pointing, in the browser: the twin of viewer/cards/pointing.py (the same walk over a
// position's click paths, the same words and the same drawing), fed with `CardTable.to_json()` in the snapshot's
// `pointing`. Nothing here decides what is legal: the paths are the game's legal moves.
//
//   const ptr = new CardPointer(snapshot.pointing);
//   ptr.click(key)          // a spot clicked (null: nothing) -> the move text to play, or null (see ptr.message)
//   ptr.point(key)          // the pointer is over a spot -> true if what is shown changed; ptr.words() says it
//   ptr.targets()           // the spots lit now
//   ptr.spotAt(layer, index, scene)   // the spot a pick ({layer, index}) of the drawn scene means
//   ptr.decorate(scene)     // a copy of the tower-scene/1 scene with the walk drawn in
//   ptr.showMove(text)      // a move's walk shown, its last place under the pointer (a hint, the list's hover)

const LIFT = 1.2;
const HALO = 0.32;
const HOVER_LABEL = 2.2;
const CHIP_HEIGHT = 0.2;
const SLOT_HEIGHT = 0.1;

const same = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);

export class CardPointer {
  constructor(doc) {
    this.table = doc;
    this.spots = new Map(doc.spots.map((s) => [s.key, s]));
    this.chosen = [];
    this.hover = null;
    this.message = '';
  }

  // --- reading the paths ---------------------------------------------------------------------------------------
  _matching(chosen) {
    const n = chosen.length;
    const out = [];
    this.table.paths.forEach(([, p], k) => { if (p.length >= n && same(p.slice(0, n), chosen)) out.push(k); });
    return out;
  }

  _moves(paths) {
    return [...new Set(paths.map((k) => this.table.paths[k][0]))].sort((a, b) => a - b);
  }

  _next(chosen) {
    const out = new Map();
    const n = chosen.length;
    for (const k of this._matching(chosen)) {
      const p = this.table.paths[k][1];
      if (p.length > n) {
        if (!out.has(p[n])) out.set(p[n], []);
        out.get(p[n]).push(k);
      }
    }
    return out;
  }

  targets() {
    return [...this._next(this.chosen).keys()];
  }

  settled() {
    if (!this.chosen.length) return null;
    const moves = this._moves(this._matching(this.chosen));
    return moves.length === 1 ? moves[0] : null;
  }

  current() {
    if (this.hover !== null) {
      const nxt = this._next(this.chosen);
      if (nxt.has(this.hover)) {
        const moves = this._moves(nxt.get(this.hover));
        if (moves.length === 1) return moves[0];
      }
    }
    return this.settled();
  }

  _label(key) {
    const s = this.spots.get(key);
    return s ? s.label : key;
  }

  // --- acting ---------------------------------------------------------------------------------------------------
  reset() {
    this.chosen = [];
    this.message = '';
  }

  click(key) {
    this.message = '';
    if (key === null || key === undefined) {
      if (this.chosen.length) this.message = `put back: ${this._label(this.chosen[0])}`;
      this.chosen = [];
      return null;
    }
    if (this.chosen.length && key === this.chosen[this.chosen.length - 1]) {
      const settled = this.settled();
      if (settled !== null) return this._play(settled);
      this.chosen.pop();
      this.message = `put back: ${this._label(key)}`;
      return null;
    }
    const nxt = this._next(this.chosen);
    if (nxt.has(key)) {
      this.chosen.push(key);
      const moves = this._moves(nxt.get(key));
      if (moves.length === 1 && this.chosen.length >= 2) return this._play(moves[0]);
      this.message = this.status();
      return null;
    }
    if (this.chosen.includes(key)) {
      this.chosen = this.chosen.slice(0, this.chosen.indexOf(key) + 1);
      this.message = this.status();
      return null;
    }
    if (this.chosen.length && this._next([]).has(key)) {
      this.chosen = [];
      return this.click(key);
    }
    if (key in this.table.why) {
      this.chosen = [];
      this.message = this.table.why[key];
      return null;
    }
    if (this.chosen.length) {
      this.message = this._refusal(key);
    } else {
      this.message = this.table.hint || 'choose a lit place';
    }
    return null;
  }

  _play(move) {
    this.chosen = [];
    this.hover = null;
    this.message = '';
    return this.table.moves[move][0];
  }

  spotAt(layer, index, scene) {
    let keys = [];
    if (layer === 'figures') {
      keys = this.table.spots.filter((s) => s.figures.includes(index)).map((s) => s.key);
    } else if (layer === 'blocks' && index >= 0 && index < scene.blocks.length) {
      const block = scene.blocks[index].id;
      if (block.startsWith('spot:')) {
        const rest = block.slice(5);
        keys = [rest.slice(0, rest.lastIndexOf(':'))];
      } else {
        keys = this.table.spots.filter((s) => s.items.includes(block)).map((s) => s.key);
      }
    }
    for (const group of [this.targets(), this.chosen, [...this._next([]).keys()]]) {
      for (const k of keys) if (group.includes(k)) return k;
    }
    return keys.length ? keys[0] : null;
  }

  point(key) {
    const before = this.hover;
    this.hover = key;
    return before !== key;
  }

  // The walk of one move shown as if clicked up to its last place, which is under the pointer (a hint, a move of
  // the list under the pointer): its card lifted, where it goes lit and said. The card clicked (its spot), or
  // null where the move has no walk.
  showMove(text) {
    const k = this.table.moves.findIndex((m) => m[0] === text);
    const path = this.table.paths.find(([move]) => move === k);
    if (!path) return null;
    const keys = path[1];
    this.chosen = keys.slice(0, Math.max(1, keys.length - 1));
    this.hover = keys.length > 1 ? keys[keys.length - 1] : null;
    return this.spots.get(keys[0]) || null;
  }

  // which card of the hand a walk lifts, where the hand holds equal ones: "; you hold 2 of them: ..." ('' if not)
  twinWords(card) {
    const twins = this.table.spots.filter((s) => s.label === card.label && s.items.some((i) => i.startsWith('hand-')));
    if (twins.length < 2) return '';
    const n = twins.indexOf(card) + 1;
    const nth = n === 1 ? '1st' : n === 2 ? '2nd' : n === 3 ? '3rd' : `${n}th`;
    return `; you hold ${twins.length} of them: the lifted one, ${nth} from the left (either plays it)`;
  }

  // --- words ----------------------------------------------------------------------------------------------------
  _litWords(names) {
    const listed = names.slice(0, 4).join(', ') + (names.length > 4 ? ` and ${names.length - 4} more` : '');
    return `${names.length === 1 ? 'the lit place' : 'a lit place'} (${listed})`;
  }

  _refusal(key) {
    const lit = this.targets().map((k) => this._label(k));
    if (lit.length) return `${this._label(this.chosen[0])} cannot go to ${this._label(key)}: click ${this._litWords(lit)}`;
    return `${this._label(key)} is not lit: click ${this._label(this.chosen[this.chosen.length - 1])} again to play it`;
  }

  status() {
    if (!this.table.moves.length) return '';
    if (!this.chosen.length) return this.table.hint;
    const settled = this.settled();
    if (settled !== null) {
      const lit = this.targets();
      const where = !lit.length ? '' : lit.length === 1 ? ' or the lit place' : ' or a lit place';
      return `${this.table.moves[settled][1]} - click it again${where} to play it`;
    }
    const n = this._moves(this._matching(this.chosen)).length;
    const chosen = this.chosen.map((k) => this._label(k)).join(', ');
    const lit = this.targets();
    return `${chosen}: ${n} moves - click a lit place (${lit.slice(0, 4).map((k) => this._label(k)).join(', ')}`
      + `${lit.length > 4 ? ' ...' : ''})`;
  }

  words(key = undefined) {
    key = key === undefined ? this.hover : key;
    if (key === null) return '';
    const nxt = this._next(this.chosen);
    if (this.chosen.length && key === this.chosen[this.chosen.length - 1]) {
      const settled = this.settled();
      return settled !== null ? `click to play: ${this.table.moves[settled][1]}` : `click to put back ${this._label(key)}`;
    }
    if (nxt.has(key)) {
      const moves = this._moves(nxt.get(key));
      if (moves.length === 1) {
        const said = this.table.moves[moves[0]][1];
        if (this.chosen.length) return `click to play: ${said}`;
        return this._chip(key) ? said : `${this._label(key)}: ${said}`;
      }
      return `${this._label(key)}: then choose on the table (${moves.length} ways)`;
    }
    const root = this._next([]);
    if (root.has(key)) {
      const moves = this._moves(root.get(key));
      return `${this._label(key)}: ${moves.length === 1 ? this.table.moves[moves[0]][1] : `${moves.length} moves`}`;
    }
    if (key in this.table.why) return this.table.why[key];
    return '';
  }

  _chip(key) {
    const s = this.spots.get(key);
    return !!s && !s.items.length && !s.figures.length && !s.box.length;
  }

  // --- drawing ----------------------------------------------------------------------------------------------------
  decorate(scene) {
    const out = structuredClone(scene);
    const lit = this.targets();
    const lifted = new Set();
    for (const key of this.chosen) {
      const s = this.spots.get(key);
      if (s) for (const i of s.items) if (i.startsWith('hand-')) lifted.add(i);
    }
    out.blocks = out.blocks.map((b) => (lifted.has(b.id)
      ? { ...b, origin: [b.origin[0], b.origin[1], b.origin[2] + LIFT], selected: true } : b));
    const byId = new Map(out.blocks.map((b) => [b.id, b]));
    const extra = [], labels = [];
    const order = new Map(this.table.spots.map((s, n) => [s.key, n]));
    const sorted = [...lit].sort((a, b) => (order.has(a) ? order.get(a) : -1) - (order.has(b) ? order.get(b) : -1));
    // a chip a first click may choose stays in the row (unlit) while another is chosen; each keeps its place
    const first = [...this._next([]).keys()].filter((k) => this.spots.has(k) && this._chip(k));
    const shown = [...new Set([...this.chosen, ...sorted, ...first])];
    const chipSlot = new Map(shown.filter((k) => this.spots.has(k) && this._chip(k))
      .sort((a, b) => order.get(a) - order.get(b)).map((k, n) => [k, n]));
    const block = (id, origin, size, faces) => ({ id, origin, size, faces, problems: [], selected: false,
      movable: false, tint: '' });
    for (const key of shown) {
      const spot = this.spots.get(key);
      if (!spot) continue;
      const colour = key === this.hover && lit.includes(key) ? 'lit-hover' : this.chosen.includes(key) ? 'picked'
        : lit.includes(key) ? 'lit' : 'card';
      if (this._chip(key)) {
        const [x, y, z, step, width] = this.table.chips;
        const x0 = x + chipSlot.get(key) * step;
        extra.push(block(`spot:${key}:0`, [x0, y, z], [width, width, CHIP_HEIGHT],
          ['card', 'card', 'card', 'card', colour, 'card']));
        labels.push({ position: [x0 + width / 2, y + width / 2, z + CHIP_HEIGHT + 0.05], text: spot.text });
        continue;
      }
      if (spot.box.length) {
        const [x, y, z, sx, sy] = spot.box;
        extra.push(block(`spot:${key}:slot`, [x, y, z], [sx, sy, SLOT_HEIGHT], Array(6).fill(colour)));
      }
      const boxes = [];
      for (const i of spot.items) {
        const b = byId.get(i);
        if (b && !lifted.has(i)) boxes.push([b.origin, b.size]);
      }
      for (const f of spot.figures) {
        if (f >= 0 && f < out.figures.length) {
          const fig = out.figures[f];
          const r = 0.45 * fig.scale;
          boxes.push([[fig.cell[0] + 0.5 - r, fig.cell[1] + 0.5 - r, fig.cell[2]], [2 * r, 2 * r, 0.1]]);
        }
      }
      boxes.forEach(([origin, size], n) => {
        extra.push(block(`spot:${key}:${n}`, [origin[0] - HALO, origin[1] - HALO, origin[2] - 0.05],
          [size[0] + 2 * HALO, size[1] + 2 * HALO, 0.16], Array(6).fill(colour)));
      });
    }
    if (this.hover !== null && (lit.includes(this.hover) || this.chosen.includes(this.hover))) {
      const spot = this.spots.get(this.hover);
      if (spot) {
        const item = spot.items.find((i) => byId.has(i));
        if (item !== undefined) out.hover = item;
      }
      // (not over a card of the hand or a chip: it would cover their neighbours; the status line says it)
      const at = extra.find((b) => b.id.startsWith(`spot:${this.hover}:`));
      const said = this.words();
      const inRow = !spot || this._chip(this.hover) || spot.items.some((i) => i.startsWith('hand-'));
      if (at && said && !inRow) {
        labels.push({ position: [at.origin[0] + at.size[0] / 2, at.origin[1] + at.size[1] / 2,
          at.origin[2] + HOVER_LABEL], text: said });
      }
    }
    out.blocks = [...out.blocks, ...extra];
    out.labels = [...out.labels, ...labels];
    out.palette = { ...out.palette, ...this.table.palette };
    return out;
  }
}
