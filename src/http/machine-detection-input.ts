// A placement's answering-machine detection from its request fields (src/http/schemas/machine-detection.ts): the
// settings the detector runs with, the defaults filling what was not given, and the one way the fields can disagree.
import { MACHINE_DETECTION_DEFAULTS, type MachineDetectionSettings } from '../media/answering-machine.js';
import type { MachineDetectionInput } from './schemas/machine-detection.js';

/** The detection's tuning fields: meaningful only with machine_detection. */
const TUNING = ['machine_detection_timeout', 'machine_detection_speech_threshold', 'machine_detection_speech_end_threshold', 'machine_detection_silence_timeout'] as const;

/** Tuning given without machine_detection: the first such field and why; else null. */
export function machineDetectionProblem(body: MachineDetectionInput): { field: string; message: string } | null {
  const tuned = TUNING.filter((field) => body[field] !== undefined);
  if (tuned.length === 0 || body.machine_detection !== undefined) return null;
  return { field: tuned[0]!, message: `${tuned.join(', ')} ${tuned.length > 1 ? 'need' : 'needs'} machine_detection (enable or detect_message_end).` };
}

export function machineDetectionSettings(body: MachineDetectionInput): MachineDetectionSettings | null {
  if (!body.machine_detection) return null;
  return {
    mode: body.machine_detection,
    timeoutMs: (body.machine_detection_timeout ?? MACHINE_DETECTION_DEFAULTS.timeoutMs / 1000) * 1000,
    speechThresholdMs: body.machine_detection_speech_threshold ?? MACHINE_DETECTION_DEFAULTS.speechThresholdMs,
    speechEndThresholdMs: body.machine_detection_speech_end_threshold ?? MACHINE_DETECTION_DEFAULTS.speechEndThresholdMs,
    silenceTimeoutMs: body.machine_detection_silence_timeout ?? MACHINE_DETECTION_DEFAULTS.silenceTimeoutMs,
  };
}
