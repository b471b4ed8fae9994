package dev.ragdemo.neo4jlocal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.io.ByteUnit;

/**
 * Runs Neo4j Community embedded with the Bolt connector on 127.0.0.1:PORT until SIGTERM / SIGINT.
 *
 * <p>Usage: {@code java -cp "neo4j-local.jar:lib/*" dev.ragdemo.neo4jlocal.Main --port 7687 --data-dir DIR}.
 * The password comes from the environment (NEO4J_PASSWORD, never the command line, where {@code ps} would show it);
 * the user from NEO4J_USER (default {@code neo4j}). Prints {@code READY bolt://127.0.0.1:PORT} once Bolt accepts
 * logins with that password, and {@code STOPPED} after a clean shutdown.
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        Map<String, String> options = parseArgs(args);
        int port = Integer.parseInt(options.getOrDefault("port", "7687"));
        if (port < 1 || port > 65535) {
            die("--port must be between 1 and 65535, got " + port);
        }
        String dataDir = options.get("data-dir");
        if (dataDir == null) {
            die("--data-dir is required");
        }
        String user = envOr("NEO4J_USER", "neo4j");
        String password = System.getenv("NEO4J_PASSWORD");
        if (password == null || password.length() < 8) {
            die("set NEO4J_PASSWORD (at least 8 characters; Neo4j refuses shorter passwords)");
        }

        Path home = Path.of(dataDir).toAbsolutePath();
        long started = System.nanoTime();
        DatabaseManagementService dbms;
        try {
            Files.createDirectories(home);
            dbms = new DatabaseManagementServiceBuilder(home)
                    .setConfig(BoltConnector.enabled, true)
                    .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                    .setConfig(GraphDatabaseSettings.auth_enabled, true)
                    // Small footprint: this is a dev/test database on a shared machine.
                    .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(64))
                    .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                    .setConfig(GraphDatabaseSettings.logical_log_rotation_threshold, ByteUnit.mebiBytes(16))
                    // Bolt's default waits 5 s twice on shutdown, after the databases are already closed.
                    .setConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofSeconds(1))
                    .setConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofSeconds(1))
                    .build();
        } catch (Exception e) {
            die("could not start Neo4j on 127.0.0.1:" + port + " with data in " + home + ": " + rootMessage(e));
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("STOPPING");
            System.out.flush();
            dbms.shutdown();
            System.out.println("STOPPED");
            System.out.flush();
            stopped.countDown();
        }, "neo4j-local-shutdown"));

        try {
            setPassword(dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME), user, password);
        } catch (Exception e) {
            System.err.println("neo4j-local: could not set the password of user '" + user + "': " + rootMessage(e));
            System.exit(1);  // runs the shutdown hook
        }
        long ms = (System.nanoTime() - started) / 1_000_000;
        System.out.println("READY bolt://127.0.0.1:" + port + " user=" + user + " data=" + home + " startup_ms=" + ms);
        System.out.flush();
        try {
            stopped.await();  // the shutdown hook releases it; the JVM exits after the hooks have run
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sets the password from the environment on every start, so the env is the single source of truth. */
    private static void setPassword(GraphDatabaseService system, String user, String password) {
        Map<String, Object> params = Map.of("user", user, "password", password);
        if (!"neo4j".equals(user)) {
            system.executeTransactionally(
                    "CREATE USER $user IF NOT EXISTS SET PASSWORD $password CHANGE NOT REQUIRED", params);
        }
        try {
            system.executeTransactionally("ALTER USER $user SET PASSWORD $password CHANGE NOT REQUIRED", params);
        } catch (RuntimeException e) {
            // Neo4j refuses to "change" a password to the one it already has: that is the restart case, fine.
            if (!rootMessage(e).contains("cannot be the same")) {
                throw e;
            }
        }
    }

    private static Map<String, String> parseArgs(String[] args) {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                die("unexpected argument: " + arg);
            }
            String name = arg.substring(2);
            String value;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                die("missing value for " + arg);
                return out;
            }
            out.put(name, value);
        }
        return out;
    }

    private static String envOr(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isEmpty() ? fallback : value;
    }

    private static String rootMessage(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (sb.length() > 0) {
                sb.append(" <- ");
            }
            sb.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
            if (t.getCause() == t) {
                break;
            }
        }
        return sb.toString();
    }

    private static void die(String message) {
        System.err.println("neo4j-local: " + message);
        System.exit(2);
    }
}
