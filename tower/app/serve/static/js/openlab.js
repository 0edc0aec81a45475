// "Open in the lab" on the game and replay pages: the position shown (a construction game's scene) becomes a
// tower-build/1 document, and a new lab starts from it (POST /api/lab) in a new tab. Only what the page shows is
// sent: the scene is the seat's own view.
import { call, errorText } from './api.js';

const FACES = ['+x', '-x', '+y', '-y', '+z', '-z'];

export function sceneBuild(scene) {
  return {
    format: 'tower-build/1',
    blocks: scene.blocks.map((b) => ({ id: b.id, origin: b.origin, size: b.size,
      faces: Object.fromEntries(FACES.map((f, i) => [f, b.faces[i]])) })),
    figures: scene.figures.map((f) => ({ color: f.colour, cell: f.cell })),
    stones: scene.stones.map((s) => ({ color: s.colour, block: s.block })),
  };
}

// Start a lab from the scene; returns the lab's address, or throws the server's refusal in words.
export async function openInLab(scene) {
  const answer = await call('POST', '/api/lab', { build: sceneBuild(scene), rules: 'flag' });
  if (!answer.ok) throw new Error(errorText(answer));
  const url = new URL(answer.data.url, location.href).href;
  window.open(url, '_blank', 'noopener');
  return url;
}
