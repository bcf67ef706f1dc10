import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { browserLocale, loadLocale } from './i18n';
import './styles.css';

// The first paint is in the visitor's language: its dictionary is loaded first (English if it fails).
await loadLocale(browserLocale()).catch(() => undefined);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
