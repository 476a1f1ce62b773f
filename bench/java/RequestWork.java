package hprofbench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One string-heavy "request" of the server benchmarks (bench/server.sh): 200 short strings
 * built, sorted and counted into a TreeMap, then a small page rendered. Shared by the JSP
 * that Tomcat serves and by RequestLoop, which runs the same work without the network. In a
 * package so that a JSP can import it.
 */
public final class RequestWork {
    /** How many strings a request builds. */
    public static final int WORDS = 200;
    /** How many rows of the counts a page shows. */
    public static final int ROWS = 20;

    private RequestWork() {
    }

    /** The request's strings, sorted: "w-KEY-HEX", KEY one of 50 so that the counts group. */
    public static List<String> words(long seed) {
        List<String> words = new ArrayList<>(WORDS);
        long x = seed * 0x9E3779B97F4A7C15L + 1;
        for (int i = 0; i < WORDS; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            int v = (int) (x >>> 33);
            words.add("w-" + (v % 50) + "-" + Integer.toHexString(v & 0xffff));
        }
        Collections.sort(words);
        return words;
    }

    /** How many of the words have each key (the text up to the second dash). */
    public static TreeMap<String, Integer> counts(List<String> words) {
        TreeMap<String, Integer> counts = new TreeMap<>();
        for (String w : words) {
            counts.merge(w.substring(0, w.indexOf('-', 2)), 1, Integer::sum);
        }
        return counts;
    }

    /** The page of one request, as RequestLoop renders it (the JSP renders the same rows). */
    public static String page(long seed) {
        List<String> words = words(seed);
        StringBuilder page = new StringBuilder(1024);
        page.append("<html><body><h1>Request ").append(seed).append("</h1><ul>\n");
        int shown = 0;
        for (Map.Entry<String, Integer> e : counts(words).entrySet()) {
            if (shown++ == ROWS) {
                break;
            }
            page.append("<li>").append(e.getKey()).append(": ").append(e.getValue()).append("</li>\n");
        }
        page.append("</ul><p>").append(words.size()).append(" words, first ").append(words.get(0))
            .append(", last ").append(words.get(words.size() - 1)).append("</p></body></html>\n");
        return page.toString();
    }
}
