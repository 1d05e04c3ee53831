// Folio's stylesheet, one file per area, imported in cascade order (later files override earlier
// ones: the narrow-window rules after the views they adjust). System fonts, light and dark themes
// from prefers-color-scheme (tokens in base.css).
import './base.css';
import './layout.css';
import './controls.css';
import './search.css';
import './reader.css';
import './original-overlay.css';
import './library.css';
import './definitions.css';
import './settings.css';
import './narrow-windows.css';
import './context-usage.css';
import './reader-tables.css';
