/** Durations as kubectl and Go write them (`90s`, `10m`, `2h`): parsed in the core, for the settings too. */
export { parseDuration } from '../lambda/core/duration.js';
