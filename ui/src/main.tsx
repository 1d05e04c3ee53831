import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { createBackend, errorMessage } from './backend';
import { StartupFailure } from './components/StartupFailure';
import './styles';

const root = document.getElementById('root');
if (!root) throw new Error('#root missing from index.html');
const view = createRoot(root);

// No backend (a production build opened in a browser): the window says why instead of staying blank.
createBackend().then(
  (backend) =>
    view.render(
      <StrictMode>
        <App backend={backend} />
      </StrictMode>,
    ),
  (e: unknown) => view.render(<StartupFailure message={errorMessage(e)} />),
);
