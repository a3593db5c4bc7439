using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Threading;
using NUnit.Framework;

namespace Ferry.Tests {

[TestFixture]
public class FerryTests {
  internal static Context CpuContext() {
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
    StringAssert.StartsWith("0.2.0", Library.VersionString());
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
    // A disposed struct's fields and methods throw too (they crashed the runtime before).
    var t = new Transform();
    t.Dispose();
    e = Assert.Throws<InvalidHandleException>(() => Console.WriteLine(t.ResizeW));
    StringAssert.Contains("the Transform is disposed", e.Message);
    Assert.Throws<InvalidHandleException>(() => t.SetChannelMap(2, 1, 0));
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
      var e = Assert.Throws<InvalidArgumentException>(() => t.SetMean(new float[5]));
      StringAssert.Contains("mean has 5 values", e.Message);
      Assert.Throws<InvalidArgumentException>(() => t.SetMean());
      Assert.Throws<InvalidArgumentException>(() => t.SetStd(null));
      Assert.Throws<OutOfRangeException>(() => t.MeanAt(4));
      Assert.Throws<InvalidArgumentException>(() => t.SetChannelMap(0, 0, 0, 0, 0));  // a length, not an index
    }
  }

  [Test]
  public void AnOutputTooSmallIsOutputTooSmall() {
    using (Context ctx = CpuContext())
    using (var source = new Source().SetShape(1, 2, 2, 3))
    using (var output = new Output()) {
      IntPtr converted = ctx.DeviceAlloc(16);
      output.Data = converted;
      output.Bytes = 16;  // float32 [1, 3, 2, 2] needs 48
      var e = Assert.Throws<OutputTooSmallException>(() => ctx.Submit(source, Pixels(12), null, output));
      StringAssert.Contains("output.bytes is 16", e.Message);
      ctx.DeviceFree(converted);
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

  /// <summary>The float32 output of n x 4 x 5 x c pixels through t (from a byte[]).</summary>
  internal static float[] ConvertNhwc(Context ctx, byte[] data, long n, long c, Transform t) {
    using (var source = new Source().SetShape(n, 4, 5, c))
    using (Batch batch = ctx.Submit(source, data, t)) {
      batch.Wait();
      using (TensorInfo info = batch.Output()) {
        var values = new float[info.Bytes / 4];
        Marshal.Copy(info.Data, values, 0, values.Length);
        return values;
      }
    }
  }

  [Test]
  public void OneMeanOrStdValueIsForEveryChannel() {
    byte[] data = Pixels(1 * 4 * 5 * 3);
    using (Context ctx = CpuContext())
    using (var t = new Transform()) {
      t.OutLayout = Layout.Nhwc;
      t.SetMean(0.5f).SetStd(0.25f);
      float[] values = ConvertNhwc(ctx, data, 1, 3, t);
      for (int i = 0; i < data.Length; ++i) Assert.AreEqual((data[i] / 255.0f - 0.5f) / 0.25f, values[i], 1e-5f, "element " + i);
    }
  }

  [Test]
  public void AChannelMapSetsTheOutputChannels() {
    byte[] data = Pixels(1 * 4 * 5 * 3);
    using (Context ctx = CpuContext())
    using (var t = new Transform().SetOutLayout("NHWC")) {
      t.SetChannelMap(2, 1, 0);  // BGR -> RGB
      Assert.AreEqual(3, t.OutChannels);
      float[] values = ConvertNhwc(ctx, data, 1, 3, t);
      for (int i = 0; i < data.Length; ++i) Assert.AreEqual(data[i - i % 3 + (2 - i % 3)] / 255.0f, values[i], 1e-6f, "element " + i);
    }
  }

  [Test]
  public void MeanAndStdLengthsAreCheckedAgainstTheChannels() {
    byte[] data = Pixels(1 * 4 * 5 * 4);
    using (Context ctx = CpuContext())
    using (var source = new Source().SetShape(1, 4, 5, 3))
    using (var t = new Transform()) {
      t.SetMean(0.5f, 0.5f);  // 2 values, 3 channels
      var e = Assert.Throws<InvalidArgumentException>(() => ctx.Submit(source, data, t));
      StringAssert.Contains("mean has 2 values", e.Message);
      StringAssert.Contains("3 channels", e.Message);
      t.SetMean(0.1f, 0.2f, 0.3f, 0.4f);  // 4 values, 3 channels
      e = Assert.Throws<InvalidArgumentException>(() => ctx.Submit(source, data, t));
      StringAssert.Contains("mean has 4 values", e.Message);
      Assert.Throws<InvalidArgumentException>(() => Library.TransformOutputInfo(source, t));
      source.SetBuffer(data);
      Assert.Throws<InvalidArgumentException>(() => ctx.Submit(source, t));
      source.SetBuffer(null);
      t.SetMean(0.1f, 0.2f, 0.3f).SetStd(1f, 2f);
      e = Assert.Throws<InvalidArgumentException>(() => ctx.Submit(source, data, t));
      StringAssert.Contains("std has 2 values", e.Message);
      t.SetStd(1f, 2f, 3f);
      ctx.Submit(source, data, t).Dispose();

      // A channel map of 2 out of 4, padded to 4: mean and std are for the 2 mapped channels.
      source.SetShape(1, 4, 5, 4);
      t.SetChannelMap(2, 0);
      t.PadChannelsTo4 = 1;
      e = Assert.Throws<InvalidArgumentException>(() => ctx.Submit(source, data, t));
      StringAssert.Contains("2 channels (then padded to 4", e.Message);
      t.SetMean(0.1f, 0.2f).SetStd(0.5f);
      ctx.Submit(source, data, t).Dispose();

      t.SetPerSampleMean(new float[] { 0.1f, 0.2f, 0.3f }, 1);
      e = Assert.Throws<InvalidArgumentException>(() => ctx.Submit(source, data, t));
      StringAssert.Contains("per_sample_mean has 3 values", e.Message);
    }
  }

  [Test]
  public void DTypeAndLayoutByName() {
    Assert.AreEqual(DType.Float16, DTypes.Parse("f16"));
    Assert.AreEqual(DType.BFloat16, DTypes.Parse("bfloat16"));
    Assert.AreEqual(DType.Float32, DTypes.Parse("Float32"));
    Assert.AreEqual(DType.UInt8, DTypes.Parse("u8"));
    Assert.AreEqual(Layout.Nhwc, Layouts.Parse("nhwc"));
    var e = Assert.Throws<InvalidArgumentException>(() => DTypes.Parse("float64"));
    StringAssert.Contains("\"float64\"", e.Message);
    StringAssert.Contains("bfloat16", e.Message);
    Assert.Throws<InvalidArgumentException>(() => Layouts.Parse("CHW"));
    using (var t = new Transform()) {
      t.SetOutDtype("f16").SetOutLayout("NHWC");
      Assert.AreEqual(DType.Float16, t.OutDtype);
      Assert.AreEqual(Layout.Nhwc, t.OutLayout);
    }
  }

  [Test]
  public void TensorInfoAndBatchSayWhatTheyAre() {
    byte[] data = Pixels(2 * 4 * 5 * 3);
    using (Context ctx = CpuContext())
    using (var source = new Source().SetShape(2, 4, 5, 3)) {
      Batch batch = ctx.Submit(source, data);
      batch.Wait();
      StringAssert.StartsWith("Batch(complete, float32 NCHW [2, 3, 4, 5] on CPU", batch.ToString());
      using (TensorInfo info = batch.Output()) {
        StringAssert.StartsWith("TensorInfo(float32 NCHW [2, 3, 4, 5] on CPU, 480 bytes", info.ToString());
        CollectionAssert.AreEqual(new long[] { 2, 3, 4, 5 }, info.Shape());
        CollectionAssert.AreEqual(new long[] { 240, 80, 20, 4 }, info.Strides());
      }
      batch.Dispose();
      Assert.AreEqual("Batch(disposed)", batch.ToString());
    }
  }

  [Test]
  public void AssemblyVersionIsFerrys() {
    Version version = typeof(Context).Assembly.GetName().Version;
    Assert.AreEqual(new Version(Library.FERRY_VERSION_MAJOR, Library.FERRY_VERSION_MINOR, Library.FERRY_VERSION_PATCH, 0),
                    version);
  }

  static void AssertUnitScale(byte[] data, ReadOnlySpan<float> values) {
    Assert.AreEqual(data.Length, values.Length);
    for (int i = 0; i < data.Length; ++i) Assert.AreEqual(data[i] / 255.0f, values[i], 1e-6f, "element " + i);
  }

  [Test]
  public void TensorOutlivesItsBatchAndContext() {
    byte[] data = Pixels(2 * 4 * 5 * 3);
    Tensor tensor;
    using (Context ctx = CpuContext())
    using (var source = new Source().SetShape(2, 4, 5, 3))
    using (var t = new Transform().SetOutLayout("NHWC"))
    using (Batch batch = ctx.Submit(source, data, t)) {
      batch.Wait();
      tensor = batch.RetainOutput();
    }
    // What the disposed context freed is reused by another context's batches.
    using (Context other = CpuContext())
    using (var source = new Source().SetShape(2, 4, 5, 3)) {
      for (int i = 0; i < 4; ++i) {
        using (Batch batch = other.Submit(source, new byte[data.Length])) batch.Wait();
      }
    }
    using (Tensor held = tensor) {
      StringAssert.StartsWith("Tensor(float32 NHWC [2, 4, 5, 3] on CPU, 480 bytes", held.ToString());
      CollectionAssert.AreEqual(new long[] { 2, 4, 5, 3 }, held.Shape());
      Assert.AreEqual(DeviceKind.Cpu, held.DeviceKind);
      Assert.AreEqual(480, held.AsSpan<byte>().Length);
      AssertUnitScale(data, held.AsSpan<float>());
      AssertUnitScale(data, held.ToArray<float>());
      AssertUnitScale(data, held.AsMemory<float>().Span);
      Assert.Throws<InvalidArgumentException>(() => held.AsSpan<double>());
      Assert.Throws<InvalidArgumentException>(() => held.ToArray<ushort>());
      using (TensorInfo info = held.Info()) Assert.AreEqual(held.Data, info.Data);
    }
    tensor.Dispose();  // idempotent
    Assert.AreEqual("Tensor(disposed)", tensor.ToString());
    Assert.Throws<InvalidHandleException>(() => { IntPtr unused = tensor.Data; });
    Assert.Throws<InvalidHandleException>(() => tensor.ToArray<float>());
  }

  [Test]
  public void DisposingABatchInFlightDoesNotWaitForIt() {
    using (var options = new ContextOptions()) {
      options.DeviceKind = DeviceKind.Cpu;
      options.CpuThreads = 1;
      using (var ctx = new Context(options))
      using (var source = new Source().SetShape(64, 224, 224, 3).SetBuffer(new byte[64 * 224 * 224 * 3]))
      using (var t = new Transform()) {
        t.Mirror = (int)Ferry.Mirror.X;
        Batch batch = ctx.Submit(source, t);
        batch.Dispose();  // returns while the batch still converts
        using (Stats stats = ctx.Stats()) {
          Assert.AreEqual(1UL, stats.BatchesSubmitted);
          Assert.AreEqual(0UL, stats.BatchesCompleted, "Dispose() waited for the batch");
        }
        batch.Dispose();  // a no-op
        Assert.Throws<InvalidHandleException>(() => batch.Query());
      }  // Dispose() of the context waits for it
    }
  }

  [Test]
  public void RetainOutputOfADisposedBatchIsInvalidHandle() {
    using (Context ctx = CpuContext())
    using (var source = new Source().SetShape(1, 4, 5, 3)) {
      Batch batch = ctx.Submit(source, Pixels(60));
      batch.Dispose();
      Assert.Throws<InvalidHandleException>(() => batch.RetainOutput());
    }
  }

  static ulong DeviceInUse(Context ctx) {
    using (Stats stats = ctx.Stats()) return stats.DeviceInUseBytes;
  }

  // Collects (and runs finalizers) until `done`, at most `times` times.
  static void CollectUntil(Func<bool> done, int times) {
    for (int i = 0; i < times && !done(); ++i) {
      GC.Collect();
      GC.WaitForPendingFinalizers();
      Thread.Sleep(10);
    }
  }

  // Runs `body` on a thread of its own: no stack slot of the caller's thread (which Mono scans
  // conservatively) keeps what it drops.
  static void OnAnotherThread(ThreadStart body) {
    var thread = new Thread(body);
    thread.Start();
    thread.Join();
  }

  class Holder { public Memory<float> Memory; }

  [Test]
  public void ADroppedTensorLetsGoOnceItAndItsMemoryAreUnreachable() {
    byte[] data = Pixels(2 * 4 * 5 * 3);
    using (Context ctx = CpuContext())
    using (var source = new Source().SetShape(2, 4, 5, 3))
    using (var t = new Transform().SetOutLayout("NHWC")) {
      var holder = new Holder();
      ulong batchOnly = 0;
      OnAnotherThread(() => {
        using (Batch batch = ctx.Submit(source, data, t)) {
          batch.Wait();
          batchOnly = DeviceInUse(ctx);
          holder.Memory = batch.RetainOutput().AsMemory<float>();  // the Tensor itself is dropped at once
        }
      });
      Assert.GreaterOrEqual(batchOnly, 480UL);
      CollectUntil(() => false, 5);
      Assert.AreEqual(batchOnly, DeviceInUse(ctx), "the Memory keeps the output");
      OnAnotherThread(() => AssertUnitScale(data, holder.Memory.Span));
      holder.Memory = default(Memory<float>);
      CollectUntil(() => DeviceInUse(ctx) == 0, 2000);
      Assert.AreEqual(0UL, DeviceInUse(ctx), "the finalizer released the dropped Tensor");
    }
  }

  // Runs the Explicit fixture `fixture` in a child nunit-console: a crash or a hang there fails
  // the calling test, not the whole run.
  static void RunInChild(string fixture) {
    string assembly = typeof(SourceLifetime).Assembly.Location;
    string output = Run("nunit-console", "-nologo -noshadow -noresult -run:Ferry.Tests." + fixture + " \"" + assembly + "\"",
                        System.IO.Path.GetDirectoryName(assembly), 300);
    StringAssert.Contains("Tests run: 1, Errors: 0, Failures: 0", output);
  }

  /// <summary>byte[] sources set with Source.SetBuffer, dropped with their Batch (no Dispose)
  /// while ferry still converts them (SourceLifetime).</summary>
  [Test]
  public void DroppedSourceStaysAliveUntilFerryIsDone() { RunInChild("SourceLifetime"); }

  const string ExitWithOpenContext = @"
static class ExitWithOpenContext {
  static void Main() {
    var options = new Ferry.ContextOptions();
    options.DeviceKind = Ferry.DeviceKind.Cpu;
    var ctx = new Ferry.Context(options);  // never disposed
    var source = new Ferry.Source().SetShape(8, 64, 64, 3).SetBuffer(new byte[8 * 64 * 64 * 3]);
    for (int i = 0; i < 8; ++i) ctx.Submit(source).Wait();
    System.Console.WriteLine(""ok"");
  }
}";

  /// <summary>A program that leaves a context open after SetBuffer submits (whose completion
  /// callbacks ran on ferry threads, which Mono then waits for at exit) still exits: compiled with
  /// mcs and run with mono (not under NUnit, whose domain unload does not wait).</summary>
  [Test]
  public void AProgramWithAnOpenContextExits() {
    string dir = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "ferry-exit-" + Guid.NewGuid().ToString("N"));
    System.IO.Directory.CreateDirectory(dir);
    try {
      string ferryDll = typeof(Context).Assembly.Location;
      System.IO.File.WriteAllText(System.IO.Path.Combine(dir, "ExitWithOpenContext.cs"), ExitWithOpenContext);
      Run("mcs", "-nologo -out:ExitWithOpenContext.exe -r:\"" + ferryDll + "\" ExitWithOpenContext.cs", dir, 120);
      var mono = Run("mono", "ExitWithOpenContext.exe", dir, 60, System.IO.Path.GetDirectoryName(ferryDll));
      StringAssert.Contains("ok", mono);
    } finally {
      System.IO.Directory.Delete(dir, true);
    }
  }

  // Runs a program; fails the test unless it exits 0 within `seconds`. Returns what it printed.
  static string Run(string program, string arguments, string dir, int seconds, string monoPath = null) {
    var start = new System.Diagnostics.ProcessStartInfo(program, arguments);
    start.UseShellExecute = false;
    start.RedirectStandardOutput = true;
    start.RedirectStandardError = true;
    start.WorkingDirectory = dir;
    if (monoPath != null) start.EnvironmentVariables["MONO_PATH"] = monoPath;
    using (var child = System.Diagnostics.Process.Start(start)) {
      var errors = child.StandardError.ReadToEndAsync();
      var output = child.StandardOutput.ReadToEndAsync();
      if (!child.WaitForExit(seconds * 1000)) {
        child.Kill();
        Assert.Fail("{0} {1} did not finish in {2} s", program, arguments, seconds);
      }
      string text = output.Result + errors.Result;
      Assert.AreEqual(0, child.ExitCode, program + " " + arguments + ": " + text);
      return text;
    }
  }
}

/// <summary>Run by FerryTests in a child process (Explicit: not in the main run). byte[] sources
/// set with Source.SetBuffer, dropped with their Source and Batch (no Dispose) right after
/// Submit, with the collector forced and freed memory reused while ferry's staging thread still
/// reads: every output must be right (it crashed when the array was pinned only during Submit).</summary>
[TestFixture, Explicit]
public class SourceLifetime {
  const int N = 8, Batches = 24, Rounds = 4, Bytes = N * 224 * 224 * 3;

  static int Value(int round, int batch) { return (round * 101 + batch * 37 + 11) & 0xff; }

  static void SubmitAndDrop(Context ctx, int value, IntPtr output) {
    var pixels = new byte[Bytes];
    for (int i = 0; i < pixels.Length; ++i) pixels[i] = (byte)value;
    var source = new Source().SetShape(N, 224, 224, 3).SetBuffer(pixels);
    var transform = new Transform();
    transform.Mirror = (int)Ferry.Mirror.X;  // not the fastest path: the batches queue up longer
    var o = new Output();
    o.Data = output;
    o.Bytes = (ulong)Bytes * 4;
    ctx.Submit(source, transform, o);
  }

  [Test]
  public void Run() {
    var outputs = new IntPtr[Batches];
    for (int b = 0; b < Batches; ++b) outputs[b] = Marshal.AllocHGlobal(Bytes * 4);
    try {
      var values = new float[Bytes];
      for (int round = 0; round < Rounds; ++round) {
        using (var options = new ContextOptions()) {
          options.DeviceKind = DeviceKind.Cpu;
          options.CpuThreads = 1;
          options.MaxBatchesInFlight = Batches;
          using (var ctx = new Context(options)) {
            for (int b = 0; b < Batches; ++b) SubmitAndDrop(ctx, Value(round, b), outputs[b]);
            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();
            for (int k = 0; k < 4; ++k) {
              var junk = new byte[Bytes];
              for (int i = 0; i < junk.Length; i += 64) junk[i] = 0xEE;
            }
          }  // Dispose waits for every batch
        }
        for (int b = 0; b < Batches; ++b) {
          Marshal.Copy(outputs[b], values, 0, values.Length);
          float want = Value(round, b) / 255.0f;
          for (int i = 0; i < values.Length; ++i) {
            if (Math.Abs(values[i] - want) > 1e-6f) Assert.Fail("round {0} batch {1} element {2}: {3} != {4}", round, b, i, values[i], want);
          }
        }
      }
    } finally {
      foreach (IntPtr p in outputs) Marshal.FreeHGlobal(p);
    }
  }
}

}  // namespace Ferry.Tests
