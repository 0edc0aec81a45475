// The lab page's palette (GET /api/lab): the kinds of block, their orientations and the colours their top and
// front may show, as the panel's choices; and the face colours of a new block's ghost.
import { el, item } from './api.js';

let palette = null;   // {kinds: [{name, sizes, tops: {SIZE: [colour, ...]}}]}

// A block's face colours (FACES order +x -x +y -y +z -z) with `top` on top and `front` facing the front (-y): the
// three pairs of opposite colours each on one axis, as every coloured block of the game has them (the server
// checks the pairs rule again). A grey block is grey all round.
const OPPOSITE = { red: 'yellow', yellow: 'red', 'dark-blue': 'light-blue', 'light-blue': 'dark-blue',
  purple: 'grey', grey: 'purple' };
export const FACE_NAMES = ['+x', '-x', '+y', '-y', '+z', '-z'];

function options(select, values, label = (v) => v) {
  select.replaceChildren(...values.map((v) => {
    const o = item('option', label(v));
    o.value = Array.isArray(v) ? v.join('x') : v;
    return o;
  }));
}

export function fillPalette(doc) {
  palette = doc;
  options(el('kind'), palette.kinds.map((k) => k.name));
  el('kind').value = 'cube';
  fillSizes();
  options(el('colour'), ['red', 'yellow', 'dark-blue', 'light-blue', 'purple']);
}

export function kind() {
  return palette.kinds.find((k) => k.name === el('kind').value);
}

export function fillSizes() {
  options(el('size'), kind().sizes, (s) => `${s.join(' x ')}${s[2] === Math.max(...s) && s[2] > 2 ? ' (standing)' : ''}`);
  fillTops();
}

export function fillTops() {
  const tops = kind().tops[el('size').value];
  const was = el('top').value;
  options(el('top'), tops);
  if (tops.includes(was)) el('top').value = was;
  fillFronts();
}

export function chosenSize() {
  return el('size').value.split('x').map(Number);
}

function fronts(top) {
  return ['red', 'yellow', 'dark-blue', 'light-blue', 'purple', 'grey'].filter((c) => c !== top && c !== OPPOSITE[top]);
}

// the face colours of the ghost of a new block: the default colouring turned to the chosen top and front (the
// server checks the real one; the ghost only has to look like it)
export function ghostFaces(top, front) {
  if (kind().name === 'grey') return Array(6).fill('grey');
  if (!fronts(top).includes(front)) front = fronts(top)[0];
  const side = ['red', 'dark-blue', 'purple'].find((c) => ![top, OPPOSITE[top], front, OPPOSITE[front]].includes(c));
  return [side, OPPOSITE[side], OPPOSITE[front], front, top, OPPOSITE[top]];
}

export function fillFronts() {
  const grey = kind().name === 'grey';
  const choices = grey ? ['grey'] : fronts(el('top').value);
  const was = el('front').value;
  options(el('front'), choices);
  if (choices.includes(was)) el('front').value = was;
  el('front').disabled = grey;
}
