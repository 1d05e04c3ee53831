import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { createBackend } from './backend';
import './styles';

const root = document.getElementById('root');
if (!root) throw new Error('#root missing from index.html');

void createBackend().then((backend) =>
  createRoot(root).render(
    <StrictMode>
      <App backend={backend} />
    </StrictMode>,
  ),
);
