import type { CommandFailedEvent, CommandSucceededEvent, MongoClient } from 'mongodb';
import type { Metrics } from './metrics';

/** A command name as a label: the driver's own names; anything unexpected is folded into `other`. */
const COMMAND_NAME = /^[A-Za-z]{1,40}$/;

/**
 * Counts and times every command the driver sends on `client` (it needs `monitorCommands`,
 * which connectDatabase sets). Only the command name and the duration are read: the events
 * also carry the commands, replies and failures, which quote stored values.
 */
export function observeMongoCommands(client: MongoClient, metrics: Metrics): void {
  const record = (outcome: 'success' | 'failure') => (event: CommandSucceededEvent | CommandFailedEvent) => {
    const command = COMMAND_NAME.test(event.commandName) ? event.commandName : 'other';
    metrics.mongodbCommands.inc({ command, outcome });
    metrics.mongodbCommandDuration.observe({ command }, event.duration / 1000);
  };
  client.on('commandSucceeded', record('success'));
  client.on('commandFailed', record('failure'));
}
