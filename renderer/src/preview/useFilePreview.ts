// Asks the broker for a file's current content (the renderer cannot read files itself).
import { useEffect, useState } from 'react';
import type { FilePreview } from '../../../shared/api';
import { errorText, isUnsupported } from '../bridge/api-error';
import { useApi } from '../store/context';

export type FileState = { state: 'loading' } | { state: 'unavailable'; why: string; directory?: boolean } | ({ state: 'ready' } & FilePreview);

export function useFilePreview(path: string | undefined): FileState {
  const api = useApi();
  const [file, setFile] = useState<FileState>({ state: 'loading' });
  useEffect(() => {
    if (!path) {
      setFile({ state: 'unavailable', why: 'the arguments name no file' });
      return;
    }
    let live = true;
    setFile({ state: 'loading' });
    const read =
      typeof api.readFileForPreview === 'function' ? api.readFileForPreview(path) : Promise.reject(new Error('unknown API method "readFileForPreview"'));
    read.then(
      (res) => live && setFile(res.refused ? { state: 'unavailable', why: res.refused, directory: res.directory } : { state: 'ready', ...res }),
      (err) =>
        live && setFile({ state: 'unavailable', why: isUnsupported(err) ? 'this version of the broker cannot read files for previews' : errorText(err) }),
    );
    return () => {
      live = false;
    };
  }, [api, path]);
  return file;
}
