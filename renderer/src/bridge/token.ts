// The API token arrives in the URL fragment (never sent to a server). Read it once, keep it in memory
// only, and drop it from the visible URL so it is not bookmarked, shared or kept in history.

export function takeTokenFromLocation(loc: Location = location, hist: History = history): string | undefined {
  const params = new URLSearchParams(loc.hash.replace(/^#/, ''));
  const token = params.get('token') ?? undefined;
  if (loc.hash) hist.replaceState(hist.state, '', loc.pathname + loc.search);
  return token || undefined;
}
