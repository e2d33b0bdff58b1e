// The sandboxed preload (built to CommonJS): exposes only the typed APIs, never ipcRenderer.
import { contextBridge, ipcRenderer } from 'electron';
import { createBridge } from './bridge.js';

const { api, desktop } = createBridge(ipcRenderer);
contextBridge.exposeInMainWorld('countersign', api);
contextBridge.exposeInMainWorld('countersignDesktop', desktop);
