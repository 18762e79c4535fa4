/** One Server-Sent Events message: its fields, and a comment line (keep-alive) apart. */
export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/**
 * Splits a Server-Sent Events body into its messages as the chunks arrive: `push` takes a
 * chunk of text and returns the messages it completed (a blank line ends one).
 */
export function sseFrames(): { push(text: string): SseFrame[] } {
  let buffer = '';
  return {
    push(text) {
      buffer += text.replace(/\r\n?/g, '\n');
      const frames: SseFrame[] = [];
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const frame: SseFrame = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) frame.comment = line.slice(1).trim();
          else {
            const at = line.indexOf(':');
            const name = at < 0 ? line : line.slice(0, at);
            const value = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '');
            if (name === 'id' || name === 'event') frame[name] = value;
            else if (name === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
          }
        }
        frames.push(frame);
      }
      return frames;
    },
  };
}
