package org.farmgate.node;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.farmgate.router.seal.SealSerializers;
import org.farmgate.router.store.HazelcastSharedMap;

/**
 * The attacker of the cluster-security tests, in a process of its own: a Hazelcast member that knows the cluster's
 * name and a member's address, runs the project's open code (so it reads our records' stream forms), and holds no
 * cluster key and no node certificate. Driven by lines on its standard input: {@code keys MAP}, {@code capture MAP
 * KEY} (copies the record as it lies in the map), {@code replay MAP KEY} (puts the copy back, or deletes the entry
 * if it was absent), {@code delete MAP KEY}, {@code owned} (partitions), {@code quit}. A lite member owns no partition, so it disturbs nothing
 * but what it writes; a data member owns its share of partitions and answers for them as it likes.
 */
public final class KeylessMember implements AutoCloseable {

    private final Process process;
    private final BufferedReader out;
    private final Writer in;

    private KeylessMember(Process process) {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    }

    /** Starts one and waits until it is a member; its log goes to {@code log}. */
    public static KeylessMember start(String clusterName, String members, boolean lite, Path log) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx192m", "-cp", System.getProperty("java.class.path"), KeylessMember.class.getName(),
                clusterName, members, String.valueOf(lite)));
        Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
        KeylessMember member = new KeylessMember(process);
        String ready = member.out.readLine();
        if (ready == null || !ready.startsWith("ready ")) {
            member.close();
            throw new IllegalStateException("the keyless member did not join: " + ready + " (log: " + log + ")");
        }
        member.memberId = ready.substring(6);
        return member;
    }

    private String memberId;

    public String memberId() {
        return memberId;
    }

    public Set<String> keys(String map) throws IOException {
        String answer = ask("keys " + map);
        return answer.isEmpty() ? Set.of() : new TreeSet<>(List.of(answer.split(" ")));
    }

    /** @return whether the entry was there */
    public boolean capture(String map, String key) throws IOException {
        return ask("capture " + map + " " + key).equals("present");
    }

    public void replay(String map, String key) throws IOException {
        ask("replay " + map + " " + key);
    }

    /** How many partitions it owns. */
    public int owned() throws IOException {
        return Integer.parseInt(ask("owned"));
    }

    public void delete(String map, String key) throws IOException {
        ask("delete " + map + " " + key);
    }

    private synchronized String ask(String line) throws IOException {
        in.write(line + "\n");
        in.flush();
        String answer = out.readLine();
        if (answer == null || !answer.startsWith("ok")) {
            throw new IOException("the keyless member answered '" + answer + "' to '" + line + "'");
        }
        return answer.length() > 3 ? answer.substring(3) : "";
    }

    @Override
    public void close() throws Exception {
        try {
            in.write("quit\n");
            in.flush();
        } catch (IOException ignored) {
            // it died already
        }
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** The process: {@code CLUSTER_NAME MEMBERS LITE}. */
    public static void main(String[] args) throws Exception {
        PrintStream answers = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        System.setOut(System.err); // Hazelcast's own output must not mix with the answers
        Config config = new Config().setClusterName(args[0]).setLiteMember(Boolean.parseBoolean(args[2]));
        config.setProperty("hazelcast.logging.type", "jdk");
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        config.setProperty("hazelcast.heartbeat.interval.seconds", "1"); // the nodes expect a beat within seconds
        config.getMetricsConfig().setEnabled(false);
        config.getNetworkConfig().setPort(5900).setPortAutoIncrement(true).setPortCount(200);
        config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        config.setProperty("hazelcast.socket.bind.any", "false");
        JoinConfig join = config.getNetworkConfig().getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setMembers(List.of(args[1].split(",")));
        HazelcastSharedMap.serializers().forEach(config.getSerializationConfig()::addSerializerConfig);
        SealSerializers.serializers().forEach(config.getSerializationConfig()::addSerializerConfig);
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
        answers.println("ready " + member.getCluster().getLocalMember().getUuid());
        Map<String, Object> captured = new HashMap<>();
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = commands.readLine()) != null && !line.equals("quit"); ) {
            String[] words = line.split(" ");
            if (words[0].equals("owned")) {
                answers.println("ok " + member.getPartitionService().getPartitions().stream()
                        .filter(partition -> partition.getOwner() != null && partition.getOwner().localMember())
                        .count());
                continue;
            }
            try {
                IMap<String, Object> map = member.getMap(words[1]);
                switch (words[0]) {
                    case "keys" -> answers.println("ok " + String.join(" ", new TreeSet<>(map.keySet())));
                    case "capture" -> {
                        Object record = map.get(words[2]);
                        captured.put(words[1] + '\0' + words[2], record);
                        answers.println(record == null ? "ok absent" : "ok present");
                    }
                    case "replay" -> {
                        Object record = captured.get(words[1] + '\0' + words[2]);
                        if (record == null) {
                            map.delete(words[2]);
                        } else {
                            map.set(words[2], record);
                        }
                        answers.println("ok");
                    }
                    case "delete" -> {
                        map.delete(words[2]);
                        answers.println("ok");
                    }
                    default -> answers.println("unknown command " + words[0]);
                }
            } catch (RuntimeException e) {
                answers.println("failed " + e);
            }
        }
        member.getLifecycleService().terminate();
        System.exit(0);
    }
}
