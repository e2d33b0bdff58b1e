// An undo from preview to apply: the preview is asked of the broker, and applying sends exactly the hash
// of the preview on screen (the broker refuses it when anything moved since; the desktop app asks once
// more in a native dialog). Conflicts are only overwritten with `confirmConflicts`, set by "Restore anyway".
import { useCallback, useEffect, useState } from 'react';
import type { UndoPreview, UndoResult, UndoTarget } from '../../../shared/undo';
import { errorText } from '../bridge/api-error';
import { useActions, useApi } from '../store/context';

export interface UndoReviewState {
  preview?: UndoPreview;
  error?: string;
  busy: boolean;
  result?: UndoResult;
  /** Asks for the preview again (after a refusal because the files moved). */
  reload(): void;
  apply(confirmConflicts: boolean): Promise<void>;
}

export function useUndoReview(target: UndoTarget): UndoReviewState {
  const api = useApi();
  const { refreshUndoable } = useActions();
  const [preview, setPreview] = useState<UndoPreview>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(true);
  const [result, setResult] = useState<UndoResult>();
  const [asked, setAsked] = useState(0);
  const key = JSON.stringify(target);

  useEffect(() => {
    let live = true;
    setBusy(true);
    setError(undefined);
    api
      .previewUndo(JSON.parse(key) as UndoTarget)
      .then((p) => live && setPreview(p))
      .catch((err: unknown) => live && (setPreview(undefined), setError(errorText(err))))
      .finally(() => live && setBusy(false));
    return () => {
      live = false;
    };
  }, [api, key, asked]);

  const reload = useCallback(() => setAsked((n) => n + 1), []);

  const apply = useCallback(
    async (confirmConflicts: boolean) => {
      if (!preview) return;
      setBusy(true);
      setError(undefined);
      try {
        // Exactly the hash shown; the target as the preview was asked for.
        const done = confirmConflicts ? await api.undo(preview.target, preview.hash, { confirmConflicts: true }) : await api.undo(preview.target, preview.hash);
        setResult(done);
        void refreshUndoable();
      } catch (err) {
        setError(errorText(err));
      } finally {
        setBusy(false);
      }
    },
    [api, preview, refreshUndoable],
  );

  return { preview, error, busy, result, reload, apply };
}
