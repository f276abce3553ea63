// A WebRTC seat as an agent's browser runs it: JsSIP in Debian's Chromium with fake media devices, registered
// over SIP-over-WebSocket, with what it hears measured through WebAudio (headless Chromium reports inbound
// audioLevel 0, so the RTP statistics cannot say whether anything was audible).
import path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, withoutInternet, type BrowserTest } from './chromium.js';
import { ROOT } from '../helpers/spawn.js';

export interface AgentOptions { pageUrl: string; wsUrl: string; uri: string; password: string }

/** What the page keeps on `window.agent`, read back by the test. */
export interface AgentState {
  registered: boolean;
  /** The current call is established (answered and acknowledged). */
  confirmed: boolean;
  registrationFailed: string | null;
  incoming: { from: string; hasOffer: boolean } | null;
  ended: string | null;
  /** Loudest sample heard so far (0..1) and when audio first rose above silence (page clock, ms). */
  peak: number;
  audibleAt: number | null;
}

let bundle: Promise<string> | null = null;

/** The page script with JsSIP (which ships CommonJS only), bundled once per process. */
function pageBundle(): Promise<string> {
  bundle ??= build({
    entryPoints: [path.join(ROOT, 'test', 'browser', 'webrtc-agent-page.js')], absWorkingDir: ROOT, bundle: true, write: false, format: 'iife',
    platform: 'browser', logLevel: 'silent',
  }).then((r) => r.outputFiles[0]!.text);
  return bundle;
}

/** `microphone`: a WAV file the fake microphone plays (looped) instead of Chromium's beeps. */
export async function launchForWebrtc(t: BrowserTest, microphone?: string): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', '--autoplay-policy=no-user-gesture-required',
      ...(microphone ? [`--use-file-for-fake-audio-capture=${microphone}`] : []),
      // Loopback ICE candidates are what the engines listen on; mDNS names would announce the host on the LAN.
      '--allow-loopback-in-peer-connection', '--disable-features=WebRtcHideLocalIpsWithMdns',
      // drachtio's wss listener presents the test harness's self-signed certificate.
      '--ignore-certificate-errors'],
  });
  t.teardown(() => browser.close());
  return withoutInternet(t, browser);
}

/**
 * A page running `snippet` as a customer pastes it into their own site. Resolves with the page and the scripts it
 * fetched (the snippet's import of JsSIP); `hearElement` measures what it plays.
 */
export async function openSnippetPage(browser: Browser, pageUrl: string, snippet: string): Promise<{ agent: WebrtcAgent; imported: string[] }> {
  const page = await browser.newPage();
  const agent = new WebrtcAgent(page);
  const imported: string[] = [];
  page.on('requestfinished', (r) => { if (r.resourceType() === 'script') imported.push(r.url()); });
  await page.goto(pageUrl);
  await page.addScriptTag({ content: await pageBundle() });
  await page.evaluate((html) => { document.body.innerHTML = ''; document.body.insertAdjacentHTML('beforeend', html); }, snippet.replace(/<script[\s\S]*<\/script>/, ''));
  const script = /<script type="module">([\s\S]*)<\/script>/.exec(snippet)?.[1] ?? '';
  await page.evaluate(() => (window as unknown as { hearElement(e: unknown): void }).hearElement(document.getElementById('remote')));
  await page.addScriptTag({ type: 'module', content: script });
  return { agent, imported };
}

export class WebrtcAgent {
  /** The page's errors and console warnings, quoted when the agent does not get where a test expects. */
  readonly #console: string[] = [];

  constructor(readonly page: Page) {
    page.on('pageerror', (err) => this.#console.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => { if (msg.type() === 'error' || msg.type() === 'warning') this.#console.push(`${msg.type()}: ${msg.text()}`); });
  }

  static async open(browser: Browser, opts: AgentOptions): Promise<WebrtcAgent> {
    const page = await browser.newPage();
    const agent = new WebrtcAgent(page);
    // A page on 127.0.0.1 is a secure context, which getUserMedia needs.
    await page.goto(opts.pageUrl);
    await page.addScriptTag({ content: await pageBundle() });
    await page.evaluate((o) => (window as unknown as { startAgent(o: AgentOptions): void }).startAgent(o), opts);
    return agent;
  }

  state(): Promise<AgentState> {
    return this.page.evaluate(() => {
      const a = (window as unknown as { agent: AgentState }).agent;
      return { registered: a.registered, confirmed: a.confirmed, registrationFailed: a.registrationFailed, incoming: a.incoming, ended: a.ended, peak: a.peak, audibleAt: a.audibleAt };
    });
  }

  /** Resolves when `holds` is true of the agent's state; rejects with the state after `timeoutMs`. */
  async until(holds: string, timeoutMs: number): Promise<AgentState> {
    try {
      await this.page.waitForFunction(`(() => { const agent = window.agent; return ${holds}; })()`, undefined, { timeout: timeoutMs, polling: 50 });
    } catch {
      throw new Error(`agent never reached ${holds}: ${JSON.stringify(await this.state())}; page said: ${this.#console.slice(-10).join(' | ') || 'nothing'}`);
    }
    return this.state();
  }

  /**
   * From now on, what the agent hears is measured in 20 ms windows for `tones` (test/engine/drachtio/support/
   * leg-audio.ts does the same for RTP): `toneWindows` reads the result.
   */
  measureTones(tones: number[]): Promise<void> { return this.page.evaluate((hz) => (window as unknown as { agentMeasure(hz: number[]): void }).agentMeasure(hz), tones); }

  /** Windows measured since the onset of all the tones (at most `max`), and per tone the share of them carrying it. */
  toneWindows(): Promise<{ windows: number; heard: Record<number, number> }> {
    return this.page.evaluate(() => (window as unknown as { agentToneWindows(): { windows: number; heard: Record<number, number> } }).agentToneWindows());
  }

  answer(): Promise<void> { return this.page.evaluate(() => (window as unknown as { agentAnswer(): void }).agentAnswer()); }
  mediaPath(): Promise<{ local: string; remote: string; protocol: string } | null> {
    return this.page.evaluate(() => (window as unknown as { agentMediaPath(): Promise<{ local: string; remote: string; protocol: string } | null> }).agentMediaPath());
  }

  /** Places a call from the seat to a SIP URI. */
  call(target: string): Promise<void> { return this.page.evaluate((to) => (window as unknown as { agentCall(to: string): void }).agentCall(to), target); }

  hangup(): Promise<void> { return this.page.evaluate(() => (window as unknown as { agentHangup(): void }).agentHangup()); }
}
