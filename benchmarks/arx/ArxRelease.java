/*
 * ARX's side of benchmarks/bench_scale.py: one release end to end, in one fresh JVM.
 *
 *   javac -cp ARX_CLASSPATH -d OUT benchmarks/arx/ArxRelease.java
 *   java  -cp OUT:ARX_CLASSPATH ArxRelease DATA.csv DATA_SEP HIER_SEP OUT.csv K SUPP QI=HIER.csv... insensitive=a,b
 *
 * It reads the CSV input and the hierarchy files, searches the optimal transformation
 * (k-anonymity, the given suppression limit, ARX's Loss, optimal search) and writes the
 * released CSV with ARX's own writer. ARX reads the input lazily, so the "search" part
 * also covers reading and dictionary-encoding the rows. Times are taken inside the JVM,
 * from before reading to after writing (JVM start-up excluded, as the Python side
 * excludes its imports); CPU is the process CPU time of all JVM threads (JIT and GC
 * included). One JSON line is printed on standard output.
 */

import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.metric.Metric;

public final class ArxRelease {

    private ArxRelease() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 7) {
            System.err.println("usage: ArxRelease DATA DATA_SEP HIER_SEP OUT K SUPP QI=HIER... insensitive=a,b");
            System.exit(2);
        }
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        File input = new File(args[0]);
        char dataSep = args[1].charAt(0);
        char hierSep = args[2].charAt(0);
        File output = new File(args[3]);
        int k = Integer.parseInt(args[4]);
        double supp = Double.parseDouble(args[5]);
        List<String> qis = new ArrayList<>();
        List<String> hierFiles = new ArrayList<>();
        String insensitive = "";
        for (int i = 6; i < args.length; i++) {
            if (args[i].startsWith("insensitive=")) {
                insensitive = args[i].substring("insensitive=".length());
            } else {
                int eq = args[i].indexOf('=');
                qis.add(args[i].substring(0, eq));
                hierFiles.add(args[i].substring(eq + 1));
            }
        }

        long p0 = os.getProcessCpuTime();
        long w0 = System.nanoTime();
        Data data = Data.create(input, StandardCharsets.UTF_8, dataSep);
        for (int q = 0; q < qis.size(); q++) {
            Hierarchy h = Hierarchy.create(new File(hierFiles.get(q)), StandardCharsets.UTF_8, hierSep);
            data.getDefinition().setAttributeType(qis.get(q), h);
        }
        for (String other : insensitive.split(",")) {
            if (!other.isEmpty()) {
                data.getDefinition().setAttributeType(other, AttributeType.INSENSITIVE_ATTRIBUTE);
            }
        }
        ARXConfiguration config = ARXConfiguration.create();
        config.addPrivacyModel(new KAnonymity(k));
        config.setSuppressionLimit(supp);
        config.setQualityModel(Metric.createLossMetric());
        config.setHeuristicSearchThreshold(Integer.MAX_VALUE);
        long w1 = System.nanoTime();
        long p1 = os.getProcessCpuTime();
        ARXResult result = new ARXAnonymizer().anonymize(data, config);
        long w2 = System.nanoTime();
        long p2 = os.getProcessCpuTime();
        DataHandle released = result.getOutput(false);
        released.save(output, dataSep);
        long w3 = System.nanoTime();
        long p3 = os.getProcessCpuTime();

        ARXNode optimum = result.getGlobalOptimum();
        int outliers = 0;
        for (int row = 0; row < released.getNumRows(); row++) {
            if (released.isOutlier(row)) {
                outliers++;
            }
        }
        StringBuilder levels = new StringBuilder("{");
        for (int q = 0; q < qis.size(); q++) {
            levels.append(q == 0 ? "" : ",").append('"').append(qis.get(q)).append("\":")
                  .append(optimum == null ? -1 : optimum.getGeneralization(qis.get(q)));
        }
        levels.append('}');
        System.out.println(String.format(Locale.ROOT,
                "{\"engine\":\"arx\",\"rows\":%d,\"frequency_s\":%.4f,\"search_s\":%.4f,\"write_s\":%.4f,"
                        + "\"total_s\":%.4f,\"write_cpu_s\":%.4f,\"cpu_s\":%.4f,\"transformation\":%s,"
                        + "\"suppressed\":%d,\"released_rows\":%d,\"max_heap_mb\":%d}",
                released.getNumRows(), (w1 - w0) / 1e9, (w2 - w1) / 1e9, (w3 - w2) / 1e9, (w3 - w0) / 1e9,
                (p3 - p2) / 1e9, (p3 - p0) / 1e9, levels, outliers, released.getNumRows() - outliers,
                Runtime.getRuntime().maxMemory() / (1024 * 1024)));
    }
}
