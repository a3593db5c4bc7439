using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Threading;
using NUnit.Framework;

namespace Ferry.Tests {

[TestFixture]
public class FerryTests {
  static Context CpuContext() {
    using (var options = new ContextOptions()) {
      options.DeviceKind = DeviceKind.Cpu;
      options.CpuThreads = 2;
      return new Context(options);
    }
  }

  static byte[] Pixels(int count) {
    var data = new byte[count];
    for (int i = 0; i < count; ++i) data[i] = (byte)(i * 37);
    return data;
  }

  static void CheckUnitScale(byte[] data, Batch batch) {
    using (TensorInfo info = batch.Output()) {
      Assert.AreEqual(DType.Float32, info.Dtype);
      var values = new float[data.Length];
      Marshal.Copy(info.Data, values, 0, values.Length);
      for (int i = 0; i < data.Length; ++i) Assert.AreEqual(data[i] / 255.0f, values[i], 1e-6f);
    }
  }

  [Test]
  public void VersionMatchesTheHeader() {
    Assert.AreEqual(Library.FERRY_VERSION_NUMBER, Library.Version());
    StringAssert.StartsWith("0.1.0", Library.VersionString());
    Assert.AreEqual("FERRY_ERR_INVALID_HANDLE", Library.StatusString(Status.ErrInvalidHandle));
  }

  [Test]
  public void CpuContextIsDisposable() {
    using (Context ctx = CpuContext()) {
      Assert.AreEqual(DeviceKind.Cpu, ctx.DeviceKind());
    }
  }

  [Test]
  public void BadOptionThrowsWithFerrysMessage() {
    using (var options = new ContextOptions()) {
      options.StreamCount = 1000;
      var e = Assert.Throws<InvalidArgumentException>(() => new Context(options));
      Assert.AreEqual(Status.ErrInvalidArgument, e.Status);
      StringAssert.Contains("stream_count", e.Message);
      StringAssert.Contains("1000", e.Message);
    }
  }

  [Test]
  public void UseAfterDisposeAndDisposeTwice() {
    Context ctx = CpuContext();
    ctx.Dispose();
    ctx.Dispose();  // idempotent
    var e = Assert.Throws<InvalidHandleException>(() => ctx.DeviceKind());
    StringAssert.Contains("ctx", e.Message);
  }

  [Test]
  public void CudaWithoutGpuIsNoDevice() {
    if (Library.DeviceCount() > 0) Assert.Ignore("a GPU is present");
    using (var options = new ContextOptions()) {
      options.DeviceKind = DeviceKind.Cuda;
      Assert.Throws<NoDeviceException>(() => new Context(options));
    }
    Assert.Throws<NoDeviceException>(() => Library.GetDeviceProperties(0));
  }

  [Test]
  public void TransformArraysAreChecked() {
    using (var t = new Transform()) {
      t.SetMean(0.5f, 0.25f, 0.125f);
      Assert.AreEqual(0.25f, t.MeanAt(1));
      Assert.Throws<OutOfRangeException>(() => t.SetMean(new float[5]));
      Assert.Throws<InvalidArgumentException>(() => t.SetStd(null));
      Assert.Throws<OutOfRangeException>(() => t.MeanAt(4));
    }
  }

  [Test]
  public void ByteArrayBatch() {
    byte[] data = Pixels(2 * 4 * 5 * 3);
    using (Context ctx = CpuContext())
    using (var source = new Source().SetShape(2, 4, 5, 3))
    using (var t = new Transform()) {
      t.OutLayout = Layout.Nhwc;
      using (Batch batch = ctx.Submit(source, data, t)) {
        batch.Wait();
        Assert.IsTrue(batch.Query());
        CheckUnitScale(data, batch);
      }
    }
  }

  [Test]
  public void SpanAndIntPtrBatches() {
    byte[] data = Pixels(1 * 4 * 5 * 3);
    using (Context ctx = CpuContext())
    using (var t = new Transform()) {
      t.OutLayout = Layout.Nhwc;
      using (var source = new Source().SetShape(1, 4, 5, 3))
      using (Batch batch = ctx.Submit(source, new ReadOnlySpan<byte>(data), t)) {
        batch.Wait();
        CheckUnitScale(data, batch);
      }
      IntPtr pinned = ctx.HostAlloc((ulong)data.Length);
      try {
        Marshal.Copy(data, 0, pinned, data.Length);
        using (var source = new Source().SetShape(1, 4, 5, 3)) {
          source.Data = pinned;
          source.Bytes = (ulong)data.Length;
          using (Batch batch = ctx.Submit(source, t)) {
            batch.Wait();
            CheckUnitScale(data, batch);
          }
        }
      } finally {
        ctx.HostFree(pinned);
      }
    }
  }

  [Test]
  public void BadInputsThrowFerryExceptions() {
    byte[] data = Pixels(60);
    using (Context ctx = CpuContext())
    using (var source = new Source().SetShape(1, 40, 5, 3)) {
      Assert.Throws<SourceTooSmallException>(() => ctx.Submit(source, data));  // too few bytes
      Assert.Throws<InvalidArgumentException>(() => ctx.Submit(null));
      Assert.Throws<InvalidArgumentException>(() => ctx.Submit(source, (byte[])null));
      source.SetShape(1, 4, 5, 7);  // 7 channels
      Assert.That(() => ctx.Submit(source, data), Throws.InstanceOf<FerryException>());
      Batch batch = ctx.Submit(new Source().SetShape(1, 4, 5, 3), data);
      batch.Dispose();
      batch.Dispose();
      Assert.Throws<InvalidHandleException>(() => batch.Wait());
    }
  }

  [Test]
  public void ContextsFromManyThreads() {
    var errors = new List<Exception>();
    var threads = new List<Thread>();
    for (int i = 0; i < 4; ++i) {
      var thread = new Thread(() => {
        try {
          for (int k = 0; k < 5; ++k) {
            using (Context ctx = CpuContext()) Assert.AreEqual(DeviceKind.Cpu, ctx.DeviceKind());
          }
        } catch (Exception e) {
          lock (errors) errors.Add(e);
        }
      });
      threads.Add(thread);
      thread.Start();
    }
    foreach (var thread in threads) thread.Join();
    Assert.IsEmpty(errors);
  }
}

}  // namespace Ferry.Tests
