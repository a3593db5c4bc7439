import io.ferry.Batch;
import io.ferry.Context;
import io.ferry.DeviceKind;
import io.ferry.Ferry;
import io.ferry.FerryException;
import io.ferry.Source;
import io.ferry.TensorInfo;
import io.ferry.Transform;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * ferry example (Java): frames in a direct ByteBuffer (no copy) submitted as batches; the output
 * is a device pointer (a long) with its shape, or host memory on the CPU backend.
 * Run: java -cp ferry.jar:. StagingLoop
 */
public final class StagingLoop {
  public static void main(String[] args) {
    final int n = 4, h = 32, w = 32, c = 3;
    ByteBuffer frames = ByteBuffer.allocateDirect(n * h * w * c);
    try (Context ctx = new Context(); Source source = new Source(); Transform transform = new Transform()) {
      transform.setMean(new float[] {0.485f, 0.456f, 0.406f});
      transform.setStd(new float[] {0.229f, 0.224f, 0.225f});
      source.setShape(n, h, w, c);
      for (int step = 0; step < 3; ++step) {
        for (int i = 0; i < frames.capacity(); ++i) frames.put(i, (byte) (step * 50));
        source.setBuffer(frames);
        try (Batch batch = ctx.submit(source, transform)) {
          batch.await();
          try (TensorInfo out = batch.output()) {
            System.out.printf("step %d: %s tensor [%d, %d, %d, %d] at 0x%x%n", step, out.getDeviceKind(),
                out.shapeAt(0), out.shapeAt(1), out.shapeAt(2), out.shapeAt(3), out.getData());
            if (out.getDeviceKind() == DeviceKind.CPU) {
              float first = Ferry.asByteBuffer(out.getData(), out.getBytes()).order(ByteOrder.nativeOrder()).getFloat(0);
              float want = ((step * 50) / 255.0f - 0.485f) / 0.229f;
              if (Math.abs(first - want) > 1e-4f) throw new IllegalStateException(first + " != " + want);
            }
          }
        }
      }
    } catch (FerryException e) {
      System.err.println("ferry failed: " + e.getMessage());
      System.exit(1);
    }
    System.out.println("ok");
  }
}
