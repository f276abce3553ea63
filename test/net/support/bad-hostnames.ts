// Host names every host input must refuse, whatever IP literals it allows (src/net/hostname.ts). Shared by the
// rule's unit test and the surface tests (trunk sip_domain, webhook host allow-list, carriers).

/** 254 characters: one over the DNS limit, every label valid. */
export const NAME_254 = `${'abcdefghi.'.repeat(25)}abcd`;

export const BAD_HOSTNAMES: readonly string[] = [
  '', 'a', 'com', 'localhost', '-a.example.com', 'a-.example.com', 'a..example.com', '.example.com', 'example..',
  `${'x'.repeat(64)}.example.com`, NAME_254, 'exa mple.com', 'under_score.example.com', 'exämple.com', '*.example.com',
  'https://x.example.com/', 'user@example.com', 'x.example.com/path', 'example.123', '[example.com]',
];
