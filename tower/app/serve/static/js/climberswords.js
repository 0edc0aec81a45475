// The Climbers on the game page: what the table offers under the pointer, in words (pure: the snapshot in, the
// words out; game.js draws and plays).

// the moves that end on one cell of the table (a figure's step), or undefined
export function cellEntry(snap, cell) {
  return snap.cells.find((c) => c.cell.every((v, i) => v === cell[i]));
}

// the stone move onto block `id`, if the stone may go there now
export function stoneMove(snap, id) {
  const text = `stone ${id}`;
  return snap.moves.includes(text) ? text : null;
}

// what a hit of the scene's picking says before it is clicked: {id: the block under the pointer or null, said}
// (`words(text)`: a move in words)
export function hoverWords(snap, scene, hit, words) {
  let id = null, said = '';
  if (hit && hit.layer === 'blocks') {
    id = scene.blocks[hit.index].id;
    const stone = stoneMove(snap, id);
    if (!snap.your_turn) said = `block ${id}`;
    else if (snap.blocks.includes(id)) said = `block ${id}: click to pick it up, then point where it goes`;
    else if (stone) said = `block ${id}: click to ${words(stone)}`;
    else {
      const why = (snap.stuck && snap.stuck[id]) || 'cannot be used now';
      said = why.startsWith(`block ${id}`) ? why : `block ${id}: ${why}`;  // (the reason may name the block already)
    }
  } else if (hit && hit.layer === 'targets' && snap.your_turn) {
    const entry = cellEntry(snap, scene.markers[hit.index].cell);
    const more = entry ? entry.moves.length - 1 : 0;
    if (entry) said = `${words(entry.moves[0])}${more ? ` (or ${more} more way${more > 1 ? 's' : ''})` : ''}`;
  }
  return { id, said };
}
