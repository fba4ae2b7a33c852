/*
 * Timing harness for ARX's optimal search, driven by benchmarks/bench_search.py.
 *
 * It reads one configuration per line on standard input, runs ARX's anonymize() on it
 * (warm-ups first, then timed runs, all in this one JVM) and prints one JSON object per
 * line on standard output. Built against an ARX library jar (see docs/benchmarks.md):
 *
 *   javac -cp ARX_CLASSPATH -d OUT benchmarks/arx/ArxBench.java
 *   java  -cp OUT:ARX_CLASSPATH ArxBench
 *
 * A configuration line is tab-separated key=value fields:
 *   id=NAME  data=CSV  sep=;  qi=a,b,c  hier.a=CSV  sensitive=s  insensitive=x,y
 *   model=k:5  model=distinct:s:3  model=entropy:s:3  model=recursive:s:4:3
 *   model=equal-t:s:0.2  model=hier-t:s:0.2  supp=0.02  warmup=2  runs=9
 * A hierarchical t-closeness model needs hier.s for its attribute.
 *
 * Timed region: anonymize() alone, on a fresh Data built from rows read once per file
 * (ARX dictionary-encodes the rows and the hierarchies inside anonymize()). Per run it
 * prints the thread CPU time (ThreadMXBean), the process CPU time (all JVM threads,
 * including JIT and GC) and the wall time, in milliseconds, with the optimum's
 * generalization levels and its information loss (ARX's Loss by default). The closing
 * line of a configuration gives the peak heap in use over its runs (the sum of the heap
 * pools' peaks, reset when the configuration starts: an upper bound of the true peak).
 */

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.criteria.DistinctLDiversity;
import org.deidentifier.arx.criteria.EntropyLDiversity;
import org.deidentifier.arx.criteria.EqualDistanceTCloseness;
import org.deidentifier.arx.criteria.HierarchicalDistanceTCloseness;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.criteria.PrivacyCriterion;
import org.deidentifier.arx.criteria.RecursiveCLDiversity;
import org.deidentifier.arx.io.CSVDataInput;
import org.deidentifier.arx.metric.Metric;

public final class ArxBench {

    private static final Map<String, List<String[]>> ROWS = new HashMap<>();
    private static final Map<String, String[][]> HIERARCHIES = new HashMap<>();

    private ArxBench() {
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.out.println("{\"ready\":true,\"java\":\"" + esc(System.getProperty("java.version")) + "\",\"max_heap_mb\":"
                + Runtime.getRuntime().maxMemory() / (1024 * 1024) + "}");
        System.out.flush();
        String line;
        while ((line = in.readLine()) != null) {
            if (line.trim().isEmpty()) {
                continue;
            }
            if (line.trim().equals("quit")) {
                break;
            }
            Map<String, List<String>> spec = parse(line);
            String id = first(spec, "id", "?");
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                pool.resetPeakUsage();
            }
            try {
                runSpec(id, spec);
            } catch (Throwable t) {
                System.out.println("{\"id\":\"" + esc(id) + "\",\"error\":\"" + esc(t.getClass().getSimpleName() + ": " + t.getMessage()) + "\"}");
            }
            long peak = 0;
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
                    peak += pool.getPeakUsage().getUsed();
                }
            }
            System.out.println("{\"id\":\"" + esc(id) + "\",\"done\":true,\"peak_heap_mib\":" + fmt(peak / 1048576.0) + "}");
            System.out.flush();
        }
    }

    private static void runSpec(String id, Map<String, List<String>> spec) throws Exception {
        char sep = first(spec, "sep", ";").charAt(0);
        List<String[]> rows = rows(first(spec, "data", null), sep);
        String[] qis = first(spec, "qi", "").split(",");
        String sensitive = first(spec, "sensitive", null);
        String insensitive = first(spec, "insensitive", "");
        double supp = Double.parseDouble(first(spec, "supp", "0"));
        int warmup = Integer.parseInt(first(spec, "warmup", "2"));
        int runs = Integer.parseInt(first(spec, "runs", "9"));
        Map<String, String[][]> hier = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> e : spec.entrySet()) {
            if (e.getKey().startsWith("hier.")) {
                hier.put(e.getKey().substring(5), hierarchy(e.getValue().get(0), sep));
            }
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        for (int i = 0; i < warmup + runs; i++) {
            Data data = Data.create(rows);
            for (String qi : qis) {
                data.getDefinition().setAttributeType(qi, Hierarchy.create(hier.get(qi)));
            }
            if (sensitive != null) {
                data.getDefinition().setAttributeType(sensitive, AttributeType.SENSITIVE_ATTRIBUTE);
            }
            for (String other : insensitive.split(",")) {
                if (!other.isEmpty()) {
                    data.getDefinition().setAttributeType(other, AttributeType.INSENSITIVE_ATTRIBUTE);
                }
            }
            ARXConfiguration config = ARXConfiguration.create();
            for (String model : spec.getOrDefault("model", new ArrayList<>())) {
                config.addPrivacyModel(model(model, hier));
            }
            config.setSuppressionLimit(supp);
            config.setQualityModel(Metric.createLossMetric());
            config.setHeuristicSearchThreshold(Integer.MAX_VALUE);
            ARXAnonymizer anonymizer = new ARXAnonymizer();
            long c0 = threads.getCurrentThreadCpuTime();
            long p0 = os.getProcessCpuTime();
            long w0 = System.nanoTime();
            ARXResult result = anonymizer.anonymize(data, config);
            long w1 = System.nanoTime();
            long p1 = os.getProcessCpuTime();
            long c1 = threads.getCurrentThreadCpuTime();
            ARXNode optimum = result.getGlobalOptimum();
            StringBuilder out = new StringBuilder();
            out.append("{\"id\":\"").append(esc(id)).append("\",\"run\":").append(i)
               .append(",\"warmup\":").append(i < warmup)
               .append(",\"cpu_ms\":").append(fmt((c1 - c0) / 1e6))
               .append(",\"process_cpu_ms\":").append(fmt((p1 - p0) / 1e6))
               .append(",\"wall_ms\":").append(fmt((w1 - w0) / 1e6))
               .append(",\"lattice\":").append(result.getLattice().getSize());
            if (optimum == null) {
                out.append(",\"levels\":null,\"loss\":null");
            } else {
                out.append(",\"levels\":{");
                for (int q = 0; q < qis.length; q++) {
                    out.append(q == 0 ? "" : ",").append('"').append(esc(qis[q])).append("\":")
                       .append(optimum.getGeneralization(qis[q]));
                }
                out.append("},\"loss\":\"").append(optimum.getHighestScore().toString()).append('"');
            }
            out.append('}');
            System.out.println(out);
            System.out.flush();
            data.getHandle().release();
        }
    }

    private static PrivacyCriterion model(String text, Map<String, String[][]> hier) {
        String[] p = text.split(":");
        switch (p[0]) {
        case "k":
            return new KAnonymity(Integer.parseInt(p[1]));
        case "distinct":
            return new DistinctLDiversity(p[1], Integer.parseInt(p[2]));
        case "entropy":
            return new EntropyLDiversity(p[1], Double.parseDouble(p[2]));
        case "recursive":
            return new RecursiveCLDiversity(p[1], Double.parseDouble(p[2]), Integer.parseInt(p[3]));
        case "equal-t":
            return new EqualDistanceTCloseness(p[1], Double.parseDouble(p[2]));
        case "hier-t":
            if (!hier.containsKey(p[1])) {
                throw new IllegalArgumentException("hier-t needs hier." + p[1]);
            }
            return new HierarchicalDistanceTCloseness(p[1], Double.parseDouble(p[2]), Hierarchy.create(hier.get(p[1])));
        default:
            throw new IllegalArgumentException("unknown model " + text);
        }
    }

    private static List<String[]> rows(String path, char sep) throws Exception {
        if (path == null) {
            throw new IllegalArgumentException("data= is missing");
        }
        List<String[]> cached = ROWS.get(path);
        if (cached == null) {
            cached = new ArrayList<>();
            Iterator<String[]> it = new CSVDataInput(new File(path), StandardCharsets.UTF_8, sep).iterator();
            while (it.hasNext()) {
                cached.add(it.next());
            }
            ROWS.put(path, cached);
        }
        return cached;
    }

    private static String[][] hierarchy(String path, char sep) throws Exception {
        String[][] cached = HIERARCHIES.get(path);
        if (cached == null) {
            List<String[]> all = new ArrayList<>();
            Iterator<String[]> it = new CSVDataInput(new File(path), StandardCharsets.UTF_8, sep).iterator();
            while (it.hasNext()) {
                all.add(it.next());
            }
            cached = all.toArray(new String[0][]);
            HIERARCHIES.put(path, cached);
        }
        return cached;
    }

    private static Map<String, List<String>> parse(String line) {
        Map<String, List<String>> spec = new LinkedHashMap<>();
        for (String field : line.split("\t")) {
            int eq = field.indexOf('=');
            if (eq > 0) {
                spec.computeIfAbsent(field.substring(0, eq), k -> new ArrayList<>()).add(field.substring(eq + 1));
            }
        }
        return spec;
    }

    private static String first(Map<String, List<String>> spec, String key, String fallback) {
        List<String> values = spec.get(key);
        return values == null || values.isEmpty() ? fallback : values.get(0);
    }

    private static String fmt(double value) {
        return String.format(Locale.ROOT, "%.3f", value);
    }

    private static String esc(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder b = new StringBuilder();
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
