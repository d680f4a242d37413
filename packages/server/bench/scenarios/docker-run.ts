import { DockerDriver } from '../../src/runtime/docker/docker-driver.js';
import { dockerSkipReason, startDockerd } from '../../test/helpers/dockerd.js';
import { buildTestImage, imageArchive } from '../../test/helpers/test-image.js';
import { measureDockerRunFloor } from '../lib/docker-floor.js';
import type { Scenario, ScenarioContext, ScenarioReport } from '../lib/scenario.js';

const RUNS = 30;

/** The engine's floor for a lobby start, on a private dockerd with the busybox test server. */
export const dockerRun: Scenario = {
  name: 'docker-run',
  description: `docker run of the busybox test server on a private dockerd, ${RUNS} times: the floor under a lobby's start`,
  async run(context: ScenarioContext): Promise<ScenarioReport> {
    const title = `docker-run: ${dockerRun.description}`;
    const skip = dockerSkipReason('bench docker-run');
    if (skip !== false) return { title, rows: [], comparisons: [], notes: [`skipped: ${skip}`] };
    const dockerd = await startDockerd();
    const driver = new DockerDriver({
      hosts: [{ dockerHost: dockerd.dockerHost, regions: ['bench'], capacity: 1 }],
    });
    try {
      const built = await buildTestImage(dockerd.engine);
      const { image } = await driver.ensureImage('bench', imageArchive(built.archive));
      // One start first, unmeasured: the engine's first container sets up what later ones reuse.
      await measureDockerRunFloor(driver, { region: 'bench', image, runs: 1 });
      const floor = await measureDockerRunFloor(driver, { region: 'bench', image, runs: RUNS });
      context.log(`docker-run: ${RUNS} runs done`);
      const ms = (n: number) => n.toFixed(0);
      return {
        title,
        rows: [],
        comparisons: [],
        notes: [
          `create + start to first output line: p50 ${ms(floor.toFirstLine.p50)} ms, p99 ${ms(floor.toFirstLine.p99)} ms, max ${ms(floor.toFirstLine.max)} ms`,
          `create + start to its port accepting: p50 ${ms(floor.toListening.p50)} ms, p99 ${ms(floor.toListening.p99)} ms, max ${ms(floor.toListening.max)} ms`,
          'anchors: Gameye ~0.5 s average session start, a Kubernetes pod ~6 s',
        ],
      };
    } finally {
      await driver.close();
      await dockerd.stop();
    }
  },
};
