// Entry point: pick the bridge (Electron preload or HTTP), then render the app.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { NoToken } from './app/NoToken';
import { pickBridge } from './bridge/pick-bridge';
import { createWorkerDiffEngine } from './diff/worker-engine';
import './styles/base.css';
import './styles/layout.css';
import './styles/queue.css';
import './styles/detail.css';
import './styles/screens.css';
import './styles/undo.css';

const root = createRoot(document.getElementById('root')!);
const bridge = pickBridge();
if (!bridge.api) {
  root.render(<NoToken />);
} else {
  root.render(
    <StrictMode>
      <App
        api={bridge.api}
        connection={'connection' in bridge ? bridge.connection : undefined}
        desktop={'desktop' in bridge ? bridge.desktop : undefined}
        diffEngine={createWorkerDiffEngine()}
      />
    </StrictMode>,
  );
}
