// Parses a Server-Sent Events text stream into `data:` payloads. Comments (`: keepalive`) have none.
// An event can span many chunks (a call with large arguments): search only the new text for its end.

export function createSseParser(onData: (data: string) => void): (chunk: string) => void {
  let buf = '';
  let scanned = 0;
  return (chunk) => {
    buf += chunk.replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buf.indexOf('\n\n', Math.max(0, scanned - 1))) !== -1) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      scanned = 0;
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
      if (data.length) onData(data.join('\n'));
    }
    scanned = buf.length;
  };
}
