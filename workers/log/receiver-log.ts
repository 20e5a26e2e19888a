import { type Logger } from 'pino';
import { type OperationalLog } from '../receiver/operational-log';
import { processLogger } from './logger';

/** The receiver's operational events as JSON log lines (`component: receiver`), redaction applied. */
export function receiverLog(logger: Logger = processLogger()): OperationalLog {
  const receiver = logger.child({ component: 'receiver' });
  return (message, fields = {}, level = 'info') => receiver[level](fields, message);
}
