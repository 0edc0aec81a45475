// What a game page says outside itself: the tab's title and icon when it is the seat's turn (a tab in the
// background says so), and the games this browser has joined (the lobby lists them; kept in the browser only).
import { el } from './api.js';

// a tab in the background says "your turn" in its title and with a dot in its icon
export function turnSignal(page, prev) {
  const snap = page.snapshot;
  const mine = snap.your_turn;
  document.title = `${mine ? '(your turn) ' : ''}${snap.title} - tower-sim`;
  if (prev && prev.your_turn === mine && page.iconDone) return;
  page.iconDone = true;
  const c = document.createElement('canvas');
  c.width = c.height = 32;
  const g = c.getContext('2d');
  g.fillStyle = '#1c3a96';
  g.fillRect(6, 14, 20, 16);
  g.fillRect(10, 4, 12, 10);
  if (mine) {
    g.fillStyle = '#2e8a46';
    g.beginPath();
    g.arc(24, 8, 8, 0, 2 * Math.PI);
    g.fill();
  }
  el('favicon').href = c.toDataURL('image/png');
  document.body.dataset.signal = mine ? 'your-turn' : 'waiting';
}

// this browser remembers the games it has joined (the lobby lists them); kept in the browser only
const JOINED_KEY = 'tower-joined-games';
export function remember(page) {
  const snap = page.snapshot;
  if (page.remembered === snap.over) return;
  page.remembered = snap.over;
  let joined = [];
  try { joined = JSON.parse(localStorage.getItem(JOINED_KEY) || '[]'); } catch { joined = []; }
  joined = joined.filter((j) => j.url !== location.href);
  const who = snap.seat === null ? 'spectator' : snap.players[snap.seat].label;
  joined.unshift({ url: location.href, title: snap.title, who, over: snap.over, at: new Date().toISOString() });
  localStorage.setItem(JOINED_KEY, JSON.stringify(joined.slice(0, 20)));
}
