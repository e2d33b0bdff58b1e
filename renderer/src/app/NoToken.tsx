// Opened without the token (a bookmark, a reload): the token is never stored, so ask for the printed address.
export function NoToken() {
  return (
    <main className="no-token">
      <h1>Open Countersign from its address</h1>
      <p>
        This page needs the one-time address that <code>countersign serve</code> printed, ending in <code>#token=…</code>. The token is kept in memory only, so
        a reload or a bookmark cannot reuse it.
      </p>
      <p>
        Run <code>countersign serve</code> again, or copy the “Countersign UI:” line it printed into the address bar.
      </p>
    </main>
  );
}
