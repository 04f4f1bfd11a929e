// Usage: AlterTopicConfig <bootstrap> <topic> <SET|DELETE|APPEND|SUBTRACT> <key> <value>
// One IncrementalAlterConfigs call through the Java Admin client; prints OK or
// the error's class and message (exit code 0 either way, 2 on usage errors).
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;

public class AlterTopicConfig {
  public static void main(String[] a) throws Exception {
    if (a.length != 5) { System.err.println("usage: AlterTopicConfig bootstrap topic op key value"); System.exit(2); }
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, a[0]);
    try (Admin admin = Admin.create(p)) {
      ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, a[1]);
      AlterConfigOp op = new AlterConfigOp(new ConfigEntry(a[3], a[4]), AlterConfigOp.OpType.valueOf(a[2]));
      try {
        admin.incrementalAlterConfigs(Map.of(r, List.of(op))).all().get();
        System.out.println("OK");
      } catch (ExecutionException e) {
        System.out.println(e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage());
      }
    }
  }
}
