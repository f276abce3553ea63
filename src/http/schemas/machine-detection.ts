// Answering-machine detection's request fields, the same on every API that places a call (POST /api/calls, a
// conference participant add): the mode and Twilio's four tuning settings (docs/speech.md).
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './common.js';
import { MACHINE_DETECTION_MODES } from '../../media/answering-machine.js';

export const MachineDetectionFields = {
  machine_detection: Type.Optional(StringEnum(MACHINE_DETECTION_MODES, {
    description: 'Answering-machine detection once the callee answers, before anything else happens on the call (a call\'s url is asked, a participant joins; docs/speech.md): "enable" decides human, machine_start, fax or unknown; "detect_message_end" waits for a machine\'s greeting to end (machine_end_beep, machine_end_silence, machine_end_other). The result is the call\'s answered_by, also sent with the document request and the status callbacks.',
  })),
  machine_detection_timeout: Type.Optional(Type.Integer({ minimum: 3, maximum: 59, description: 'Seconds detection may take at most. Default 30.' })),
  machine_detection_speech_threshold: Type.Optional(Type.Integer({ minimum: 1000, maximum: 6000, description: 'Milliseconds of speech that make a machine\'s greeting. Default 2400.' })),
  machine_detection_speech_end_threshold: Type.Optional(Type.Integer({ minimum: 500, maximum: 5000, description: 'Milliseconds of silence that end a greeting. Default 1200.' })),
  machine_detection_silence_timeout: Type.Optional(Type.Integer({ minimum: 2000, maximum: 10000, description: 'Milliseconds of silence from the answer after which the result is unknown. Default 5000.' })),
};
const MachineDetectionBody = Type.Object(MachineDetectionFields);
export type MachineDetectionInput = Static<typeof MachineDetectionBody>;
