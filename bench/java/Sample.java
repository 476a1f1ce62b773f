import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The sample program that `make sample` profiles: counts word frequencies in a generated
 * text and prints the ten most common words. Most of its time is spent in {@link #normalize},
 * which strips punctuation, folds accents and lower-cases a word one character at a time, so
 * that method should lead the CPU SAMPLES list (the HashMap counting in {@link #count} comes
 * next).
 *
 *   java Sample [WORDS (default 4000000)]
 */
public final class Sample {
    private static final String[] SYLLABLES = {
        "ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "ga", "vu", "ze", "r\u00e9", "\u00e0l",
    };
    private static final String PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
    /** Accented Latin letters (U+00C0-U+017F) and the plain letters they fold to, position by position. */
    private static final String ACCENTED = "\u00c0\u00c1\u00c2\u00c3\u00c4\u00c5\u00c7\u00c8\u00c9\u00ca\u00cb\u00cc"
            + "\u00cd\u00ce\u00cf\u00d1\u00d2\u00d3\u00d4\u00d5\u00d6\u00d9\u00da\u00db"
            + "\u00dc\u00dd\u00e0\u00e1\u00e2\u00e3\u00e4\u00e5\u00e7\u00e8\u00e9\u00ea"
            + "\u00eb\u00ec\u00ed\u00ee\u00ef\u00f1\u00f2\u00f3\u00f4\u00f5\u00f6\u00f9"
            + "\u00fa\u00fb\u00fc\u00fd\u00ff\u0100\u0101\u0102\u0103\u0104\u0105\u0106"
            + "\u0107\u0108\u0109\u010a\u010b\u010c\u010d\u010e\u010f\u0112\u0113\u0114"
            + "\u0115\u0116\u0117\u0118\u0119\u011a\u011b\u011c\u011d\u011e\u011f\u0120"
            + "\u0121\u0122\u0123\u0124\u0125\u0128\u0129\u012a\u012b\u012c\u012d\u012e"
            + "\u012f\u0130\u0134\u0135\u0136\u0137\u0139\u013a\u013b\u013c\u013d\u013e"
            + "\u0143\u0144\u0145\u0146\u0147\u0148\u014c\u014d\u014e\u014f\u0150\u0151"
            + "\u0154\u0155\u0156\u0157\u0158\u0159\u015a\u015b\u015c\u015d\u015e\u015f"
            + "\u0160\u0161\u0162\u0163\u0164\u0165\u0168\u0169\u016a\u016b\u016c\u016d"
            + "\u016e\u016f\u0170\u0171\u0172\u0173\u0174\u0175\u0176\u0177\u0178\u0179"
            + "\u017a\u017b\u017c\u017d\u017e";
    private static final String FOLDED = "aaaaaaceeeeiiiinooooouuuuyaaaaaaceeeeiiiinooooouuuuyyaaaaaaccccccccddeee"
            + "eeeeeeegggggggghhiiiiiiiiijjkkllllllnnnnnnoooooorrrrrrssssssssttttuuuuuu"
            + "uuuuuuwwyyyzzzzzz";

    private Sample() {
    }

    /** Deterministic text: WORDS words built from syllables, with capitals and punctuation. */
    static List<String> generate(int words) {
        List<String> text = new ArrayList<>(words);
        long x = 42;
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < words; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            long r = x >>> 16;
            sb.setLength(0);
            int n = 1 + (int) (Long.numberOfTrailingZeros(r | 8) % 4);
            for (int s = 0; s < n; s++) {
                sb.append(SYLLABLES[(int) ((r >>> (8 + 4 * s)) % SYLLABLES.length)]);
            }
            if ((r & 0x70) == 0) {
                sb.setCharAt(0, Character.toUpperCase(sb.charAt(0)));
            }
            if ((r & 0x300) == 0) {
                sb.append(PUNCTUATION.charAt((int) ((r >>> 40) % PUNCTUATION.length())));
            }
            text.add(sb.toString());
        }
        return text;
    }

    /** The hot method: folds accents, lower-cases, keeps letters and digits only. */
    static String normalize(String word) {
        char[] out = new char[word.length()];
        int n = 0;
        for (int i = 0; i < word.length(); i++) {
            char c = word.charAt(i);
            boolean punctuation = false;
            for (int p = 0; p < PUNCTUATION.length(); p++) {
                if (PUNCTUATION.charAt(p) == c) {
                    punctuation = true;
                    break;
                }
            }
            if (punctuation) {
                continue;
            }
            for (int a = 0; a < ACCENTED.length(); a++) {
                if (ACCENTED.charAt(a) == c) {
                    c = FOLDED.charAt(a);
                    break;
                }
            }
            if (Character.isLetterOrDigit(c)) {
                out[n++] = Character.toLowerCase(c);
            }
        }
        return new String(out, 0, n);
    }

    static Map<String, Integer> count(List<String> text, int passes) {
        Map<String, Integer> counts = new HashMap<>();
        for (int p = 0; p < passes; p++) {
            for (String w : text) {
                String n = normalize(w);
                if (!n.isEmpty()) {
                    counts.merge(n, 1, Integer::sum);
                }
            }
        }
        return counts;
    }

    public static void main(String[] args) {
        int words = args.length > 0 ? Integer.parseInt(args[0]) : 4_000_000;
        List<String> text = generate(words / 4);
        Map<String, Integer> counts = count(text, 4);
        List<Map.Entry<String, Integer>> top = new ArrayList<>(counts.entrySet());
        top.sort(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        System.out.println(words + " words, " + counts.size() + " distinct; the ten most common:");
        for (Map.Entry<String, Integer> e : top.subList(0, Math.min(10, top.size()))) {
            System.out.printf("  %-10s %8d%n", e.getKey(), e.getValue());
        }
    }
}
