// The polite live region: each message is a new element, and only additions are read out, so a
// re-render never repeats one. Screen readers hear "New call waiting: write_file on fs." once per call.
import { useApp } from '../store/context';

export function Announcements() {
  const announcements = useApp((s) => s.announcements);
  return (
    <div className="sr-only" role="log" aria-live="polite" aria-relevant="additions" aria-label="Announcements" id="announcements">
      {announcements.map((a) => (
        <p key={a.id}>{a.text}</p>
      ))}
    </div>
  );
}
