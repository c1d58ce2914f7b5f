/**
 * The only module that touches runtime specifics (Deno, Bun). Product code stays on web
 * standards and `node:` built-ins and asks this module for the rest: which runtime it is on,
 * files embedded in a compiled binary, files mapped instead of read, an HTTP listener that reports the peer address, and the
 * process's stop signals, worker scripts, how promptly freed memory goes back to the system and
 * when garbage is collected.
 */
export { purgeFreedMemoryPromptly } from "./allocator.ts";
export { embeddedFile } from "./embedded.ts";
export { collectGarbage, collectWhenGrown, type GarbageGuardOptions, startGarbageGuard } from "./garbage.ts";
export { canMapFiles, fdCrc32Sync, fileCrc32, mapFile, writeMappedFile } from "./mapped_file.ts";
export { listen, type Listener, type ListenOptions, type PeerInfo } from "./listen.ts";
export { runtime } from "./runtime.ts";
export { type ServerSocket, type SocketHandlers, type Upgrade } from "./websocket.ts";
export { exitOnStopSignals } from "./stop_signals.ts";
export { isCompiledBinary, startWorker } from "./worker.ts";
