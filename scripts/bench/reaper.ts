/**
 * The harness's safety net, in a process of its own: it holds the process groups the harness
 * started and kills them all when the harness goes away without doing it itself (even on
 * SIGKILL, when no exit handler of the harness runs: the IPC channel then closes).
 *
 * Messages: { add: pgid } and { remove: pgid }. On disconnect: SIGKILL to every group held, exit.
 */

const groups = new Set<number>();

process.on('message', (message: { add?: number; remove?: number }) => {
  if (typeof message.add === 'number') groups.add(message.add);
  if (typeof message.remove === 'number') groups.delete(message.remove);
});

process.on('disconnect', () => {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  process.exit(0);
});

// The harness may be gone before this process got its channel up.
if (!process.connected) process.exit(0);
