// A promise whose failure the code that awaits it reports (a worker's start, a lab's call) is marked
// handled where it is made with this, by name, so no engine logs it as unhandled and no failure is
// dropped by an anonymous empty catch (decision 0060).

/** The failure handler of a promise that another awaits and reports: it does nothing more here. */
export const awaitedElsewhere = () => undefined;
